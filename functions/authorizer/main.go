// Command authorizer is the API Gateway REQUEST authorizer: Bearer key -> account.
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw"
	"github.com/sluice-api/sluice/internal/lambdaapp"
)

func main() {
	app := lambdaapp.MustNew(lambdaapp.AuthOnly)
	lambda.Start(apigw.NewAuthorizer(app.Accounts, app.Log).Handle)
}
