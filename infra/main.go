// Command infra is Sluice's AWS CDK app: one ServiceStack per configured region (see README.md
// in this folder). `cdk synth` runs it through cdk.json; `CDK_OUTDIR=out go run ./infra` runs it
// directly and then reads the context of cdk.json itself. Neither needs AWS credentials.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/aws/aws-cdk-go/awscdk/v2"
)

func main() {
	// No jsii.Close(): in jsii-runtime-go v1.127.0 it races with the runtime's own process
	// watcher and prints "Runtime process exited abnormally"; the runtime exits with us.
	ctx, err := fileContext("cdk.json")
	if err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
	app := awscdk.NewApp(&awscdk.AppProps{Context: &ctx})
	if _, err := NewServiceApp(app, DistDir); err != nil {
		fmt.Fprintln(os.Stderr, "infra:", err)
		os.Exit(1)
	}
	app.Synth(nil)
}

// fileContext returns the "context" object of the cdk.json at path when the app runs without
// the CDK CLI (which passes its context in CDK_CONTEXT_JSON itself), so that `go run ./infra`
// synthesizes the same regions as `cdk synth`. A missing file gives no context (the defaults).
func fileContext(path string) (map[string]any, error) {
	if os.Getenv("CDK_CONTEXT_JSON") != "" || os.Getenv("CONTEXT_OVERFLOW_LOCATION_ENV") != "" {
		return map[string]any{}, nil
	}
	doc, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	var f struct {
		Context map[string]any `json:"context"`
	}
	if err := json.Unmarshal(doc, &f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if f.Context == nil {
		f.Context = map[string]any{}
	}
	return f.Context, nil
}
