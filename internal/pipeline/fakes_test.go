package pipeline

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services"
)

// fake is a test-only service whose behaviour is a function.
type fake struct {
	d  services.Descriptor
	fn func(ctx context.Context, req services.Request) (services.Result, error)
}

func (f *fake) Descriptor() services.Descriptor { return f.d }
func (f *fake) Run(ctx context.Context, req services.Request) (services.Result, error) {
	return f.fn(ctx, req)
}

func desc(name, kind string, accepts []string, emits string) services.Descriptor {
	d := services.Descriptor{
		Name: name, Kind: kind, Version: 3, Accepts: accepts, Emits: emits, BillingUnit: "characters",
		Languages: []string{"any"}, Params: map[string]services.Param{}, Model: services.Model{ID: "fake-" + name, License: "test"},
	}
	switch kind {
	case services.KindClassify:
		d.Labels = []string{"bad"}
		d.Params["threshold"] = services.Param{Type: services.ParamNumber, Default: 0.5, Minimum: services.Ptr(0.0), Maximum: services.Ptr(1.0)}
	case services.KindExtract:
		d.OutputSchema = []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"],"additionalProperties":false}`)
	}
	return d
}

// testRegistry has:
//   - test.upper (transform): upper-cases, param mode (string, allowed a|b), entities (array)
//   - test.double (transform): doubles the text (ignoring Request.MaxOutputChars)
//   - test.grow (transform): doubles the text, honouring Request.MaxOutputChars
//   - test.bigmap (transform): passes the text on with a map of 8 entries, each the whole text
//   - test.bad (classify): score = share of "bad" words; flag at threshold
//   - test.count (extract): {"n": code points}
//   - test.broken (extract): returns data that fails its schema
//   - test.fail (transform): returns an error
//   - test.panic (transform): panics
//   - test.slow (transform): waits for ctx
//   - test.tokens (transform): text -> tokens (emits another type)
//   - test.tokensonly (classify): accepts tokens only
func testRegistry(t testing.TB) *services.Registry {
	t.Helper()
	upper := desc("test.upper", services.KindTransform, []string{"text"}, "same")
	upper.Params["mode"] = services.Param{Type: services.ParamString, Default: "a", Allowed: []string{"a", "b"}, MaxLength: services.Ptr(1)}
	upper.Params["entities"] = services.Param{Type: services.ParamArray, Items: "string", Default: []string{"x"}, Allowed: []string{"x", "y"}}
	upper.Params["words"] = services.Param{Type: services.ParamArray, Items: "string", Default: []string{}, MaxLength: services.Ptr(2), ItemMinLength: services.Ptr(1), ItemMaxLength: services.Ptr(3)}
	reg, err := services.NewRegistry(
		&fake{upper, func(_ context.Context, r services.Request) (services.Result, error) {
			out := strings.ToUpper(r.Payload.Value)
			return services.Result{Payload: services.Payload{Type: "text", Value: out}, Changes: 1}, nil
		}},
		&fake{desc("test.double", services.KindTransform, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Payload: services.Payload{Type: "text", Value: r.Payload.Value + r.Payload.Value}, Changes: 1}, nil
		}},
		&fake{desc("test.grow", services.KindTransform, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			if r.MaxOutputChars > 0 && 2*utf8.RuneCountInString(r.Payload.Value) > r.MaxOutputChars {
				return services.Result{}, fmt.Errorf("grow: %w", services.ErrOutputTooLarge)
			}
			return services.Result{Payload: services.Payload{Type: "text", Value: r.Payload.Value + r.Payload.Value}, Changes: 1}, nil
		}},
		&fake{desc("test.bigmap", services.KindTransform, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			m := map[string]string{}
			for i := range 8 {
				m[fmt.Sprintf("[T_%d]", i)] = r.Payload.Value
			}
			return services.Result{Payload: r.Payload, Map: m}, nil
		}},
		&fake{desc("test.bad", services.KindClassify, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			words := strings.Fields(r.Payload.Value)
			n := 0
			for _, w := range words {
				if w == "bad" {
					n++
				}
			}
			score := 0.0
			if len(words) > 0 {
				score = float64(n) / float64(len(words))
			}
			res := services.Result{Score: score, Verdict: services.Classify(score, r.Params.Number("threshold"), 0)}
			if n > 0 {
				res.Labels = []string{"bad"}
			}
			return res, nil
		}},
		&fake{desc("test.count", services.KindExtract, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Data: map[string]int{"n": len([]rune(r.Payload.Value))}}, nil
		}},
		&fake{desc("test.broken", services.KindExtract, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Data: map[string]string{"n": "not a number"}}, nil
		}},
		&fake{desc("test.fail", services.KindTransform, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{}, errors.New("backend exploded")
		}},
		&fake{desc("test.panic", services.KindTransform, []string{"text"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			var empty []int
			return services.Result{Changes: empty[len(r.Payload.Value)]}, nil // index out of range panics
		}},
		&fake{desc("test.slow", services.KindTransform, []string{"text"}, "same"), func(ctx context.Context, r services.Request) (services.Result, error) {
			select {
			case <-ctx.Done():
				return services.Result{}, ctx.Err()
			case <-time.After(time.Minute):
				return services.Result{Payload: r.Payload}, nil
			}
		}},
		&fake{desc("test.tokens", services.KindTransform, []string{"text"}, "tokens"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Payload: services.Payload{Type: "tokens", Value: strings.Join(strings.Fields(r.Payload.Value), "|")}}, nil
		}},
		&fake{desc("test.tokensonly", services.KindClassify, []string{"tokens"}, "same"), func(_ context.Context, r services.Request) (services.Result, error) {
			return services.Result{Verdict: services.VerdictPass, Score: 0}, nil
		}},
	)
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func testEngine(t testing.TB, opts ...Option) *Engine {
	t.Helper()
	e, err := New(testRegistry(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}
