// Command authorizer is the API Gateway REQUEST authorizer: Bearer key -> account. It links only
// the key check (no engine, model or service code).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw/authorizer"
	"github.com/sluice-api/sluice/internal/lambdaapp"
)

func main() {
	base := lambdaapp.MustNew()
	lambda.Start(authorizer.New(base.Accounts, base.Log).Handle)
}
