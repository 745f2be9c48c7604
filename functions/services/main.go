// Command services is the Lambda handler for GET /v1/services/{name} and GET /v1/usage.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw"
	"github.com/sluice-api/sluice/internal/lambdaapp"
)

func main() {
	app := lambdaapp.MustNew(lambdaapp.Full)
	lambda.Start(apigw.NewHandlers(app.Server).Read)
}
