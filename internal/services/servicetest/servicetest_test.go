package servicetest

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services"
)

// echo is a well-behaved transform: it upper-cases and checks its context every 1,000 bytes.
type echo struct{ d services.Descriptor }

func (e echo) Descriptor() services.Descriptor { return e.d }
func (e echo) Run(ctx context.Context, r services.Request) (services.Result, error) {
	var b strings.Builder
	for i := 0; i < len(r.Payload.Value); i += 1000 {
		if err := ctx.Err(); err != nil {
			return services.Result{}, err
		}
		b.WriteString(strings.ToUpper(r.Payload.Value[i:min(i+1000, len(r.Payload.Value))]))
	}
	out := b.String()
	changes := 0
	if out != r.Payload.Value {
		changes = 1
	}
	return services.Result{Payload: services.Payload{Type: services.TypeText, Value: out}, Changes: changes}, nil
}

// quadratic compares every pair of spaces, as the v1 card search compared every pair of digit
// groups.
type quadratic struct{ echo }

func (q quadratic) Run(ctx context.Context, r services.Request) (services.Result, error) {
	var idx []int
	for i, c := range r.Payload.Value {
		if c == ' ' {
			idx = append(idx, i)
		}
	}
	n := 0
	for i := range idx {
		for j := i + 1; j < len(idx); j++ {
			if idx[j]-idx[i] == 7 {
				n++
			}
		}
	}
	return services.Result{Payload: r.Payload, Changes: 0}, nil
}

func transformDesc() services.Descriptor {
	return services.Descriptor{
		Name: "test.echo", Kind: services.KindTransform, Version: 1, Description: "upper-cases",
		Accepts: []string{"text"}, Emits: "same", BillingUnit: "characters", Languages: []string{"any"},
		Params: map[string]services.Param{
			"mode": {Type: services.ParamString, Default: "a", Allowed: []string{"a", "b"}, Description: "a mode"},
		},
		Model: services.Model{ID: "none", License: "Apache-2.0"},
	}
}

func TestSuitePassesAWellBehavedService(t *testing.T) {
	Run(t, echo{transformDesc()}, Config{LinearSize: 40_000})
}

// quadraticSize is an input on which quadratic work takes well over LinearRatioBound times the
// floor of CheckLinear, also under the race detector.
func quadraticSize() int {
	if raceEnabled {
		return 20_000
	}
	return 40_000
}

func TestCheckLinearCatchesQuadraticWork(t *testing.T) {
	q := quadratic{echo{transformDesc()}}
	if err := CheckLinear(q, Config{}, Case{"DigitsSpace", repeat("1 ")}, quadraticSize()); err == nil {
		t.Fatal("CheckLinear accepted a service that compares every pair of spaces")
	}
}

// bursty does quadratic work on its first burst runs of a long input, as a linear service seems
// to when other tests in the process take CPU time during one measurement, and is linear after.
type bursty struct {
	echo
	long, burst int
}

func (b *bursty) Run(ctx context.Context, r services.Request) (services.Result, error) {
	if len(r.Payload.Value) >= b.long && b.burst > 0 {
		b.burst--
		return quadratic{b.echo}.Run(ctx, r)
	}
	return b.echo.Run(ctx, r)
}

func TestCheckLinearMeasuresAgainAfterABurst(t *testing.T) {
	size := quadraticSize()
	c := Case{"DigitsSpace", repeat("1 ")}
	// One measurement takes the best of three runs of the long input: three slow runs make it
	// fail.
	if err := checkLinearOnce(&bursty{echo{transformDesc()}, size, 3}, Config{}, c, size); err == nil {
		t.Fatal("a measurement during the burst passed; the test does not exercise a retry")
	}
	if err := CheckLinear(&bursty{echo{transformDesc()}, size, 3}, Config{}, c, size); err != nil {
		t.Fatalf("CheckLinear failed a service that was slow only during its first measurement: %v", err)
	}
	if err := CheckLinear(&bursty{echo{transformDesc()}, size, 3 * linearAttempts}, Config{}, c, size); err == nil {
		t.Fatal("CheckLinear passed a service that was slow on every measurement")
	}
}

func TestCheckDescriptor(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*services.Descriptor)
		ok     bool
	}{
		{"Valid", func(*services.Descriptor) {}, true},
		{"NoName", func(d *services.Descriptor) { d.Name = "" }, false},
		{"BadKind", func(d *services.Descriptor) { d.Kind = "mutate" }, false},
		{"NoVersion", func(d *services.Descriptor) { d.Version = 0 }, false},
		{"NoText", func(d *services.Descriptor) { d.Accepts = []string{"image"} }, false},
		{"BadLanguage", func(d *services.Descriptor) { d.Languages = []string{"eng"} }, false},
		{"UnsortedLanguages", func(d *services.Descriptor) { d.Languages = []string{"fr", "de"} }, false},
		{"NoModelLicense", func(d *services.Descriptor) { d.Model.License = "" }, false},
		{"DefaultNotAllowed", func(d *services.Descriptor) {
			d.Params["mode"] = services.Param{Type: services.ParamString, Default: "c", Allowed: []string{"a", "b"}, Description: "x"}
		}, false},
		{"ArrayDefaultTooLong", func(d *services.Descriptor) {
			d.Params["words"] = services.Param{Type: services.ParamArray, Items: "string", Default: []string{"abcd"}, ItemMaxLength: services.Ptr(3), Description: "x"}
		}, false},
		{"NumberDefaultOutOfBounds", func(d *services.Descriptor) {
			d.Params["t"] = services.Param{Type: services.ParamNumber, Default: 2.0, Maximum: services.Ptr(1.0), Description: "x"}
		}, false},
		{"ParamWithoutDescription", func(d *services.Descriptor) {
			d.Params["t"] = services.Param{Type: services.ParamNumber, Default: 0.5}
		}, false},
		{"ClassifyWithoutLabels", func(d *services.Descriptor) { d.Kind = services.KindClassify }, false},
		{"ExtractWithBadSchema", func(d *services.Descriptor) {
			d.Kind = services.KindExtract
			d.OutputSchema = []byte(`{"type": 7}`)
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := transformDesc()
			tc.change(&d)
			if err := CheckDescriptor(d); (err == nil) != tc.ok {
				t.Fatalf("CheckDescriptor = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestCheckResult(t *testing.T) {
	classify := services.Descriptor{Kind: services.KindClassify, Labels: []string{"bad"}}
	extract := services.Descriptor{Name: "test.x", Kind: services.KindExtract,
		OutputSchema: []byte(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)}
	req := services.Request{Payload: services.Payload{Type: "text", Value: "abc"}}
	for _, tc := range []struct {
		name string
		d    services.Descriptor
		res  services.Result
		ok   bool
	}{
		{"Transform", transformDesc(), services.Result{Payload: services.Payload{Type: "text", Value: "ABC"}, Changes: 1}, true},
		{"TransformInvalidUTF8", transformDesc(), services.Result{Payload: services.Payload{Type: "text", Value: "\xff"}, Changes: 1}, false},
		{"TransformSilentChange", transformDesc(), services.Result{Payload: services.Payload{Type: "text", Value: "ABC"}}, false},
		{"Classify", classify, services.Result{Verdict: "flag", Score: 0.9, Labels: []string{"bad"}}, true},
		{"ClassifyUnknownLabel", classify, services.Result{Verdict: "flag", Score: 0.9, Labels: []string{"worse"}}, false},
		{"ClassifyScoreAboveOne", classify, services.Result{Verdict: "flag", Score: 1.5}, false},
		{"ClassifyUnknownVerdict", classify, services.Result{Verdict: "maybe", Score: 0.5}, false},
		{"Extract", extract, services.Result{Data: map[string]int{"n": 3}}, true},
		{"ExtractOffSchema", extract, services.Result{Data: map[string]string{"n": "three"}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := CheckResult(tc.d, req, tc.res); (err == nil) != tc.ok {
				t.Fatalf("CheckResult = %v, want ok=%v", err, tc.ok)
			}
		})
	}
}

func TestHostileSizes(t *testing.T) {
	for _, c := range append([]Case{{"Prose", Prose}}, Hostile()...) {
		t.Run(c.Name, func(t *testing.T) {
			for _, n := range []int{0, 1, 7, 1000} {
				s := c.Make(n)
				if got := utf8.RuneCountInString(s); got != n || !utf8.ValidString(s) {
					t.Fatalf("Make(%d) has %d code points (valid UTF-8: %v)", n, got, utf8.ValidString(s))
				}
			}
		})
	}
}

func FuzzEcho(f *testing.F) { Fuzz(f, echo{transformDesc()}, Config{}) }
