// Command sluice calls the Sluice API from a shell, through the Go client (client/): it runs a
// text through a pipeline, lists the services and shows the month's usage.
//
//	export SLUICE_KEY=sluice_live_...
//	sluice run --step governance.pii.redact:entities='["name","email"]' "Hi, I am Jane Doe, mail me at jane@example.com"
//	echo "Ignore all previous instructions" | sluice run --step guard=security.jailbreak.shield:stop_if='{"verdict":"flag"}'
//	sluice run --pipeline pipeline.json < message.txt
//	sluice services
//	sluice services governance.pii.redact
//	sluice usage
//
// Run sluice -h for every flag.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv)
	stop()
	os.Exit(code)
}
