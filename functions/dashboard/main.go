// Command dashboard is the Lambda function behind GET and POST /dashboard and
// /dashboard/{proxy+}: the account dashboard, outside the key authorizer (it signs holders in
// with single-use links and sessions of its own).
package main

import (
	"github.com/aws/aws-lambda-go/lambda"

	"github.com/sluice-api/sluice/internal/apigw"
	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/lambdaapp/dashapp"
	"github.com/sluice-api/sluice/internal/services/builtin"
)

func main() {
	lambda.Start(apigw.NewHTTPHandler(dashapp.MustNew(builtin.New), dashboard.WithBasePath).Handle)
}
