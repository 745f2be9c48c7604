package services_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
)

// shout is a transform service: it upper-cases the text.
type shout struct{}

func (shout) Descriptor() services.Descriptor {
	return services.Descriptor{
		Name: "example.shout", Kind: services.KindTransform, Version: 1,
		Accepts: []string{services.TypeText}, Emits: services.EmitsSame, BillingUnit: "characters",
		Languages: []string{"any"}, Params: map[string]services.Param{}, Model: services.Model{ID: "none", License: "none"},
	}
}

func (shout) Run(_ context.Context, r services.Request) (services.Result, error) {
	return services.Result{Payload: services.Payload{Type: services.TypeText, Value: strings.ToUpper(r.Payload.Value)}, Changes: 1}, nil
}

// A registry holds services by name; each service describes itself (kind, payload types,
// params) and runs one payload at a time.
func ExampleNewRegistry() {
	reg, err := services.NewRegistry(shout{})
	if err != nil {
		fmt.Println(err)
		return
	}
	svc, d, ok := reg.Lookup("example.shout")
	fmt.Println(ok, d.Kind, reg.Names())
	res, _ := svc.Run(context.Background(), services.Request{Payload: services.Payload{Type: services.TypeText, Value: "hello"}})
	fmt.Println(res.Payload.Value)
	// Output:
	// true transform [example.shout]
	// HELLO
}

// Classify turns a classify service's score into its verdict: flag at or above the threshold
// plus the band, pass below the threshold minus the band, uncertain between.
func ExampleClassify() {
	for _, score := range []float64{0.2, 0.45, 0.55, 0.8} {
		fmt.Println(score, services.Classify(score, 0.5, 0.1))
	}
	// Output:
	// 0.2 pass
	// 0.45 uncertain
	// 0.55 uncertain
	// 0.8 flag
}
