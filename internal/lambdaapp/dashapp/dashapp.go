// Package dashapp builds the account dashboard of the dashboard Lambda function: the base
// (store, secrets, accounts), the metering runner that runs the playground's pipelines (package
// apiapp, over the registry the main passes in) and the dashboard handler on top, served only
// over HTTPS through API Gateway.
package dashapp

import (
	"fmt"
	"net/http"

	"github.com/sluice-api/sluice/internal/dashboard"
	"github.com/sluice-api/sluice/internal/lambdaapp"
	"github.com/sluice-api/sluice/internal/lambdaapp/apiapp"
	"github.com/sluice-api/sluice/internal/services"
)

// New builds the dashboard over base with the services of reg.
func New(base *lambdaapp.Base, reg *services.Registry) (http.Handler, error) {
	if base.Config.Tables.Sessions == "" {
		return nil, fmt.Errorf("dashapp: the dashboard needs its sessions table (%s or %s)", lambdaapp.EnvTablePrefix, lambdaapp.EnvSessions)
	}
	runner, err := apiapp.NewRunner(base, reg)
	if err != nil {
		return nil, err
	}
	h, err := dashboard.New(dashboard.Config{
		Store: base.Store, Accounts: base.Accounts, Runner: runner, Registry: reg, Pepper: base.Secrets.Pepper,
		// API Gateway serves it over HTTPS only: __Host- cookies, Secure.
		Region: base.Config.Region, Secure: true, Log: base.Log,
	})
	if err != nil {
		return nil, fmt.Errorf("dashapp: %w", err)
	}
	return h, nil
}

// MustNew builds the dashboard from the environment over the registry that build returns
// (builtin.New in the function), or fails the function's init.
func MustNew(build func() (*services.Registry, error)) http.Handler {
	base := lambdaapp.MustNew()
	reg, err := build()
	if err != nil {
		lambdaapp.Fail(fmt.Errorf("dashapp: %w", err))
	}
	h, err := New(base, reg)
	if err != nil {
		lambdaapp.Fail(err)
	}
	return h
}
