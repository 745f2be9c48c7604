// Package builtin wires Sluice's six built-in services into one registry.
package builtin

import (
	"fmt"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent"
	"github.com/sluice-api/sluice/internal/services/langid"
	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/internal/services/shield"
	"github.com/sluice-api/sluice/internal/services/toxicity"
)

// New builds every built-in service (loading its embedded model once) and returns the registry.
func New() (*services.Registry, error) {
	var svcs []services.Service
	for _, build := range []func() (services.Service, error){
		func() (services.Service, error) { return langid.New() },
		func() (services.Service, error) { return shield.New() },
		func() (services.Service, error) { return pii.NewRedact() },
		func() (services.Service, error) { return pii.NewTokenize() },
		func() (services.Service, error) { return toxicity.New() },
		func() (services.Service, error) { return intent.New() },
	} {
		s, err := build()
		if err != nil {
			return nil, fmt.Errorf("builtin: %w", err)
		}
		svcs = append(svcs, s)
	}
	return services.NewRegistry(svcs...)
}
