// Package builtin wires Sluice's six built-in services into one registry.
package builtin

import (
	"errors"
	"fmt"
	"sync"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent"
	"github.com/sluice-api/sluice/internal/services/langid"
	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/internal/services/shield"
	"github.com/sluice-api/sluice/internal/services/toxicity"
)

// New builds every built-in service (loading its embedded model once) and returns the registry.
// The models load side by side: on a machine with several cores, a cold start waits for the
// slowest model instead of the sum of them all.
func New() (*services.Registry, error) {
	builds := []func() (services.Service, error){
		func() (services.Service, error) { return langid.New() },
		func() (services.Service, error) { return shield.New() },
		func() (services.Service, error) { return pii.NewRedact() },
		func() (services.Service, error) { return pii.NewTokenize() },
		func() (services.Service, error) { return toxicity.New() },
		func() (services.Service, error) { return intent.New() },
	}
	svcs := make([]services.Service, len(builds))
	errs := make([]error, len(builds))
	var wg sync.WaitGroup
	for i, build := range builds {
		wg.Go(func() { svcs[i], errs[i] = build() })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("builtin: %w", err)
	}
	return services.NewRegistry(svcs...)
}
