// Package timing is the time budget of a run on AWS, shared by the CDK app (the run function's
// timeout) and the functions (the settle reserve), so that the two cannot drift apart.
//
// API Gateway waits at most APIGatewayIntegration for the run function. On a cold start that
// wait includes the function's init (loading secrets and models), which Lambda runs before the
// handler's timeout starts counting. The run function's steps stop SettleReserve before its
// deadline, so that charging the run fits, and the budget keeps Headroom to spare:
//
//	ColdStartInit + RunTimeout + SettleReserve + Headroom = APIGatewayIntegration
package timing

import "time"

const (
	// APIGatewayIntegration is API Gateway's integration timeout for a REST API (its default,
	// and the most it allows without a quota increase).
	APIGatewayIntegration = 29 * time.Second
	// Headroom is what the budget keeps between the latest answer and API Gateway's timeout.
	Headroom = 2 * time.Second
	// ColdStartInit bounds a cold start's init: secrets and models load in under a second (about
	// 0.3 s measured on a developer machine; more on Lambda's share of a CPU).
	ColdStartInit = 3 * time.Second
	// SettleReserve is kept from the request's deadline for settling after the steps: charging
	// the run and completing its idempotency record, a few DynamoDB writes with their retries.
	SettleReserve = time.Second
	// RunTimeout is the run function's Lambda timeout: 23 s.
	RunTimeout = APIGatewayIntegration - Headroom - ColdStartInit - SettleReserve
)
