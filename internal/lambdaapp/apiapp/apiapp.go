// Package apiapp builds the api.Server of the Lambda functions that run services (run, services),
// and the metering runner under it that the dashboard's playground uses too: the engine over the
// registry the main passes in, loaded once per container, and the metrics observer. The
// authorizer does not import it, so it links no engine, model or service code.
package apiapp

import (
	"fmt"
	"io"
	"os"

	"github.com/sluice-api/sluice/internal/api"
	"github.com/sluice-api/sluice/internal/lambdaapp"
	"github.com/sluice-api/sluice/internal/metering"
	"github.com/sluice-api/sluice/internal/metrics"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/timing"
)

// NewRunner builds the metering use case over base with the services of reg: the run
// function's and the dashboard playground's. Its settle reserve is timing.SettleReserve, the one
// the run function's timeout is computed with.
func NewRunner(base *lambdaapp.Base, reg *services.Registry) (*metering.Runner, error) {
	engine, err := pipeline.New(reg, pipeline.WithLogger(base.Log))
	if err != nil {
		return nil, fmt.Errorf("apiapp: %w", err)
	}
	return metering.New(base.Store, engine, metering.Config{
		Region: base.Config.Region, TokenKey: base.Secrets.TokenKey, SettleReserve: timing.SettleReserve, Log: base.Log,
	}), nil
}

// New builds the api.Server over base with the services of reg; metricsOut receives EMF lines
// (stdout on Lambda).
func New(base *lambdaapp.Base, reg *services.Registry, metricsOut io.Writer) (*api.Server, error) {
	runner, err := NewRunner(base, reg)
	if err != nil {
		return nil, err
	}
	rec := metrics.New(metricsOut, base.Config.Namespace, map[string]string{"Function": base.Config.Function})
	return api.NewServer(runner, base.Accounts, api.Config{Log: base.Log, Observe: Observer(rec)}), nil
}

// MustNew builds the base from the environment and the server over the registry that build
// returns (builtin.New in the functions), or fails the function's init.
func MustNew(build func() (*services.Registry, error)) *api.Server {
	// The models load while the base fetches its configuration and secrets: a cold start waits
	// for the longer of the two, not their sum.
	type built struct {
		reg *services.Registry
		err error
	}
	models := make(chan built, 1)
	go func() {
		reg, err := build()
		models <- built{reg, err}
	}()
	base := lambdaapp.MustNew()
	b := <-models
	reg, err := b.reg, b.err
	if err != nil {
		lambdaapp.Fail(fmt.Errorf("apiapp: %w", err))
	}
	srv, err := New(base, reg, os.Stdout)
	if err != nil {
		lambdaapp.Fail(err)
	}
	return srv
}

// Observer turns api observations into metrics.
func Observer(rec *metrics.Recorder) func(api.Observation) {
	return func(o api.Observation) {
		status := o.RunStatus
		if status == "" {
			status = "rejected"
		}
		m := metrics.RunMetrics{
			Route: o.Route, Status: status, HTTPStatus: o.HTTPStatus, Code: o.Code,
			Steps: len(o.Steps), BilledCharacters: o.BilledCharacters, Latency: o.Duration,
		}
		for _, s := range o.Steps {
			m.StepLatencies = append(m.StepLatencies, metrics.StepLatency{Service: s.Service, Latency: s.Duration})
		}
		rec.Run(m)
	}
}
