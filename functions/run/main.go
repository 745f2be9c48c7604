// Command run is the Lambda handler for POST /v1/run.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw"
	"github.com/sluice-api/sluice/internal/lambdaapp/apiapp"
	"github.com/sluice-api/sluice/internal/services/builtin"
)

func main() {
	lambda.Start(apigw.NewHandlers(apiapp.MustNew(builtin.New)).Run)
}
