package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"
	"time"

	"github.com/sluice-api/sluice/client"
)

// Run a pipeline: stop on a jailbreak, else redact names and e-mails. (The README's Go example
// is this one, and a test keeps them equal.)
func Example() {
	c := client.New(os.Getenv("SLUICE_KEY")) // the local server; client.WithBaseURL for AWS
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	resp, err := c.Run(ctx, client.RunRequest{
		Input: client.Text("Hi, I am Jane Doe, mail me at jane@example.com"),
		Pipeline: []client.Step{
			{ID: "guard", Service: "security.jailbreak.shield", StopIf: client.StopIfVerdict(client.VerdictFlag)},
			{ID: "pii", Service: "governance.pii.redact", Params: map[string]any{"entities": []string{"name", "email"}}},
		},
	})
	if err != nil {
		log.Fatal(err) // a *client.Error says why; see the Error example
	}
	if resp.Status == client.StatusHalted {
		fmt.Println("halted at", resp.HaltedAt, "with score", resp.Results[resp.HaltedAt].Classify.Score)
		return
	}
	fmt.Println(resp.Output.Value) // Hi, I am [REDACTED], mail me at [REDACTED]
	fmt.Println(resp.Results["pii"].Transform.Changes, "changes;", resp.Usage.Characters(), "characters billed; trace", resp.TraceID)
}

// Branch on what went wrong: a failed run, a duplicate, a rejection, the rate limit, or no answer.
func ExampleError() {
	c := client.New(os.Getenv("SLUICE_KEY"))
	resp, err := c.Run(context.Background(), client.RunRequest{
		Input:    client.Text("Call me on +44 20 7946 0958"),
		Pipeline: []client.Step{{ID: "tok", Service: "governance.pii.tokenize"}},
	})
	var apiErr *client.Error
	var dup *client.DuplicateError
	var maybe *client.MaybeBilledError
	switch {
	case err == nil:
		fmt.Println(resp.Output.Value, resp.Results["tok"].Transform.Map)
	case errors.As(err, &dup):
		// An earlier attempt ran and was billed, but its answer was lost: its output is gone.
		// Run again under a new key if you need it (billed again), or keep dup.TraceID.
		fmt.Println("ran before as", dup.TraceID)
	case errors.As(err, &maybe):
		// It may have been billed: send the same request again later under maybe.IdempotencyKey
		// (a duplicate was billed), never as a new run, which would bill again.
		fmt.Println("may have been billed; resend under", maybe.IdempotencyKey)
	case errors.As(err, &apiErr) && resp != nil:
		// A failed run (HTTP 200): the completed steps are billed and their results are in resp.
		fmt.Println("run failed:", apiErr.Code, len(resp.Results), "steps completed")
	case errors.As(err, &apiErr) && apiErr.Code == client.CodeRateLimited:
		// Still limited after the retries: the window resets in apiErr.RateLimit.Reset.
		fmt.Println("rate limited; retry in", apiErr.RetryAfter)
	case errors.As(err, &apiErr):
		// Rejected: nothing ran, nothing was billed. Param points at the offending field.
		fmt.Println(apiErr.HTTPStatus, apiErr.Code, apiErr.Param, apiErr.Message, apiErr.TraceID)
	default:
		// No answer: the connection failed or the context ended (errors.Is(err, context.DeadlineExceeded)).
		fmt.Println("no answer:", err)
	}
}

// Configure the client: where the API is, the HTTP client, the retry policy and a user agent.
func ExampleNew() {
	c := client.New(os.Getenv("SLUICE_KEY"),
		client.WithBaseURL("https://abc123.execute-api.eu-west-1.amazonaws.com/prod"),
		client.WithHTTPClient(&http.Client{Timeout: 30 * time.Second}),
		client.WithRetry(client.RetryPolicy{MaxRetries: 5, BaseDelay: time.Second, MaxDelay: 30 * time.Second}),
		client.WithUserAgent("checkout-service/1.4"),
	)
	_ = c
}

// Set your own Idempotency-Key to deduplicate a run across processes and restarts for 24 hours.
func ExampleRunRequest_idempotencyKey() {
	c := client.New(os.Getenv("SLUICE_KEY"))
	resp, err := c.Run(context.Background(), client.RunRequest{
		IdempotencyKey: "order-7731",
		Input:          client.Text("Call me on +44 20 7946 0958"),
		Pipeline:       []client.Step{{ID: "tok", Service: "governance.pii.tokenize", Params: map[string]any{"entities": []string{"phone"}}}},
	})
	if errors.Is(err, client.ErrDuplicate) {
		fmt.Println("order-7731 already ran as", resp.TraceID)
		return
	}
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Output.Value)
}

// See where the month stands, and how many requests the window has left.
func ExampleClient_Usage() {
	c := client.New(os.Getenv("SLUICE_KEY"))
	u, err := c.Usage(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s: %d characters in %d runs, $%s; %d of %d characters left; %d requests left for %s\n",
		u.Month, u.Characters, u.Runs, u.CostUSD, u.AllowanceLeft, u.Allowance, u.RateLimit.Remaining, u.RateLimit.Reset)
}

// List the services and their params.
func ExampleClient_Services() {
	c := client.New(os.Getenv("SLUICE_KEY"))
	l, err := c.Services(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	for _, d := range l.Services {
		fmt.Println(d.Name, d.Kind, len(d.Params), "params")
	}
}
