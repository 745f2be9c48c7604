// Package client calls the Sluice text-guardrail API from Go: typed requests and answers, safe
// retries, and errors to branch on. It uses only the standard library and is MIT-licensed (see
// LICENSE), so you may vendor it.
//
// Make one Client with New and reuse it; it is safe for concurrent use:
//
//	c := client.New(os.Getenv("SLUICE_KEY"), client.WithBaseURL("https://abc123.execute-api.eu-west-1.amazonaws.com/prod"))
//	resp, err := c.Run(ctx, client.RunRequest{
//		Input: client.Text("Hi, I am Jane Doe, mail me at jane@example.com"),
//		Pipeline: []client.Step{
//			{ID: "guard", Service: "security.jailbreak.shield", StopIf: client.StopIfVerdict(client.VerdictFlag)},
//			{ID: "pii", Service: "governance.pii.redact"},
//		},
//	})
//
// Run returns the run's output, one typed result per step (a TransformResult, ClassifyResult or
// ExtractResult, by the service's kind; governance.pii.tokenize's map is TransformResult.Map),
// the billing lines and the audit trace. Services and Service return descriptors; Usage returns
// the account's month to date.
//
// # Errors
//
// Every answer Sluice rejects is an *Error with the HTTP status, a stable Code (the Code
// constants), a Message, the offending Param and the TraceID to quote to support. A run that
// starts answers HTTP 200 even when a step fails: Run then returns both the *RunResponse (the
// steps that completed are billed and their results are there) and an *Error with HTTPStatus 200
// and a failed-run code such as CodeStepFailed. Errors without an answer (a connection that
// broke, a context that ended) are returned as they happened, wrapped.
//
// # Retries and idempotency
//
// A call is retried, by default up to 3 times with jittered exponential backoff (RetryPolicy),
// after a connection error, a 408, a 409 idempotency_key_in_use, a 429 or a 5xx; a Retry-After
// from Sluice is honoured. The context's deadline always wins: no wait is started that would end
// past it, and a wait in progress ends with the context.
//
// A run is billed, so Run never sends one twice unless Sluice can tell them apart: every run goes
// under an Idempotency-Key, RunRequest.IdempotencyKey or else a random one the client makes, and
// a repeat of a key that already ran answers "duplicate" without running or billing. When an
// attempt's answer is lost (a dropped connection after Sluice ran it), the retry is answered
// duplicate and Run returns a *DuplicateError (errors.Is(err, ErrDuplicate)) with the original
// run's TraceID: that run was billed, but its output is gone, because Sluice keeps no payload.
// Run again under a new key if you need the output, knowing it is billed again.
// WithoutIdempotencyKeys turns the automatic keys off; a run without a key is then retried only
// when it certainly did not run (a 429, or a connection that could not be opened).
//
// # Rate limits
//
// Every answer and every *Error carries the account's RateLimit: the requests allowed per
// one-minute window, those remaining, and the time until the window resets.
//
// The API itself is described in Sluice's API reference (docs/api.md in the Sluice repository)
// and in the OpenAPI document served at GET /v1/openapi.json. These types follow that document,
// and a test in the repository fails when they drift from it.
package client
