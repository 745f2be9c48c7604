// Command keyctl manages Sluice accounts and API keys on the embedded store or on DynamoDB,
// while the service runs. See README.md beside this file, or keyctl -h.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/sluice-api/sluice/scripts/keyctl/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Env{Getenv: os.Getenv, Now: time.Now})
	stop()
	os.Exit(code)
}
