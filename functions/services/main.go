// Command services is the Lambda handler for the read-only routes: GET /v1/services,
// /v1/services/{name}, /v1/usage and /v1/openapi.json.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw"
	"github.com/sluice-api/sluice/internal/lambdaapp/apiapp"
	"github.com/sluice-api/sluice/internal/services/builtin"
)

func main() {
	lambda.Start(apigw.NewHandlers(apiapp.MustNew(builtin.New)).Read)
}
