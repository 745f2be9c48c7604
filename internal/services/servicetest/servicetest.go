// Package servicetest is the conformance suite every Sluice service runs, as storetest is for the
// stores: its descriptor is valid, its results have the shape its kind promises, it gives the
// same answer under many goroutines, it honours a cancelled context, and its running time stays
// linear on hostile text. It also gives each service its fuzz target and its adversarial
// benchmark table, so a service package's own tests keep only what is special about it.
package servicetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluice-api/sluice/internal/services"
)

// Config says how to run a service under the suite.
type Config struct {
	// Params are the step params for every run, before defaults: the suite fills in the
	// descriptor's default for every param not given here, as the engine does.
	Params services.Params
	// Inputs are ordinary texts for this service on top of the suite's own.
	Inputs []string
	// Check, when set, checks a service-specific invariant of one result. It must not call
	// t.Fatal (it may run on other goroutines); it returns an error instead.
	Check func(in string, res services.Result) error
	// LinearSize is the size of the large input of the linearity check (default 100,000 code
	// points; the small one is an eighth of it).
	LinearSize int
}

// Request returns the request the suite sends for text: cfg's params over the descriptor's
// defaults, a fixed account and tokenization key.
func (cfg Config) Request(d services.Descriptor, text string) services.Request {
	p := services.Params{}
	for name, spec := range d.Params {
		p[name] = cloneValue(spec.Default)
	}
	for name, v := range cfg.Params {
		p[name] = v
	}
	return services.Request{
		Payload:  services.Payload{Type: services.TypeText, Value: text},
		Params:   p,
		Account:  "acct_servicetest",
		TokenKey: []byte("servicetest-token-key-0123456789"),
	}
}

// Run runs the whole suite against svc.
func Run(t *testing.T, svc services.Service, cfg Config) {
	t.Helper()
	d := svc.Descriptor()
	t.Run("Descriptor", func(t *testing.T) {
		if err := CheckDescriptor(d); err != nil {
			t.Fatal(err)
		}
	})
	inputs := cfg.inputs()
	t.Run("Results", func(t *testing.T) {
		for i, in := range inputs {
			res, err := svc.Run(context.Background(), cfg.Request(d, in))
			if err != nil {
				t.Fatalf("input %d (%d code points): Run: %v", i, utf8.RuneCountInString(in), err)
			}
			if err := cfg.check(d, in, res); err != nil {
				t.Fatalf("input %d (%d code points): %v", i, utf8.RuneCountInString(in), err)
			}
		}
	})
	t.Run("Concurrent", func(t *testing.T) { concurrent(t, svc, cfg, inputs) })
	t.Run("Cancelled", func(t *testing.T) { cancelled(t, svc, cfg) })
	t.Run("Linear", func(t *testing.T) { linear(t, svc, cfg) })
}

func (cfg Config) inputs() []string {
	in := []string{"", " ", "a", "Hello", "Hello, world!", "😀", "\u200b", Prose(300), Prose(2000)}
	for _, c := range Hostile() {
		in = append(in, c.Make(200))
	}
	return append(in, cfg.Inputs...)
}

func (cfg Config) check(d services.Descriptor, in string, res services.Result) error {
	if err := CheckResult(d, cfg.Request(d, in), res); err != nil {
		return err
	}
	if cfg.Check != nil {
		return cfg.Check(in, res)
	}
	return nil
}

// concurrent runs every input on many goroutines at once and compares each answer with the one
// a single goroutine got.
func concurrent(t *testing.T, svc services.Service, cfg Config, inputs []string) {
	d := svc.Descriptor()
	want := make([]services.Result, len(inputs))
	for i, in := range inputs {
		res, err := svc.Run(context.Background(), cfg.Request(d, in))
		if err != nil {
			t.Fatalf("input %d: Run: %v", i, err)
		}
		want[i] = res
	}
	const workers = 8
	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range inputs {
				i := (k + w*len(inputs)/workers) % len(inputs) // each worker starts elsewhere
				res, err := svc.Run(context.Background(), cfg.Request(d, inputs[i]))
				if err != nil {
					errs <- fmt.Errorf("worker %d, input %d: Run: %w", w, i, err)
					return
				}
				if !reflect.DeepEqual(res, want[i]) {
					errs <- fmt.Errorf("worker %d, input %d: result differs under concurrency:\n got %+v\nwant %+v", w, i, res, want[i])
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// cancelled checks that a service given a cancelled or expired context on a large input stops
// with the context's error instead of doing the work.
func cancelled(t *testing.T, svc services.Service, cfg Config) {
	d := svc.Descriptor()
	big := Prose(100_000)
	for _, tc := range []struct {
		name string
		ctx  func() (context.Context, context.CancelFunc)
		want error
	}{
		{"Canceled", func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			return ctx, cancel
		}, context.Canceled},
		{"DeadlineExceeded", func() (context.Context, context.CancelFunc) {
			return context.WithDeadline(context.Background(), time.Unix(0, 0))
		}, context.DeadlineExceeded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := tc.ctx()
			defer cancel()
			_, err := svc.Run(ctx, cfg.Request(d, big))
			if !errors.Is(err, tc.want) {
				t.Fatalf("Run on 100,000 code points with a done context: err = %v, want %v", err, tc.want)
			}
		})
	}
}

// linear checks that no hostile input costs super-linear time (see CheckLinear).
func linear(t *testing.T, svc services.Service, cfg Config) {
	size := cfg.LinearSize
	switch {
	case size == 0 && raceEnabled:
		size = 24_000
	case size == 0:
		size = 100_000
	}
	for _, c := range append([]Case{{"Prose", Prose}}, Hostile()...) {
		t.Run(c.Name, func(t *testing.T) {
			if err := CheckLinear(svc, cfg, c, size); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// LinearRatioBound is how much longer than on an eighth of the input a service may take on the
// whole: linear work grows about 8x and quadratic work 64x, so 24x leaves room for noise.
const LinearRatioBound = 24

// CheckLinear compares the CPU time of case c on size code points with its CPU time on an
// eighth of that (each the best of three runs) and fails above LinearRatioBound. CPU time of the
// process, not wall-clock time, so a busy machine does not make a linear service look quadratic.
// The process's CPU time also counts the other tests running in it, so a ratio above the bound
// is measured again, up to linearAttempts times in all: super-linear work exceeds the bound on
// every attempt, a burst of other work seldom twice in a row.
func CheckLinear(svc services.Service, cfg Config, c Case, size int) error {
	var err error
	for range linearAttempts {
		if err = checkLinearOnce(svc, cfg, c, size); err == nil {
			return nil
		}
		var slow *slowError
		if !errors.As(err, &slow) {
			return err
		}
	}
	return err
}

// linearAttempts is how many times CheckLinear measures before it reports a ratio above the
// bound.
const linearAttempts = 3

// slowError is a ratio above LinearRatioBound.
type slowError struct{ msg string }

func (e *slowError) Error() string { return e.msg }

func checkLinearOnce(svc services.Service, cfg Config, c Case, size int) error {
	d := svc.Descriptor()
	small, large := c.Make(size/8), c.Make(size)
	ts, err := best(svc, cfg.Request(d, small), 3)
	if err != nil {
		return err
	}
	tl, err := best(svc, cfg.Request(d, large), 3)
	if err != nil {
		return err
	}
	floor := time.Millisecond // below this, accounting granularity dominates the ratio
	if r := float64(tl) / float64(max(ts, floor)); tl > floor && r > LinearRatioBound {
		return &slowError{fmt.Sprintf("%s: %d code points took %v, %d took %v: %.1fx for 8x the input (bound %dx)",
			c.Name, size/8, ts, size, tl, r, LinearRatioBound)}
	}
	return nil
}

// best returns the least CPU time of n runs of req. Each run starts after a collection, so
// that no run pays for garbage an earlier one left behind.
func best(svc services.Service, req services.Request, n int) (time.Duration, error) {
	var min time.Duration
	for i := range n {
		runtime.GC()
		start := cpuTime()
		if _, err := svc.Run(context.Background(), req); err != nil {
			return 0, fmt.Errorf("Run: %w", err)
		}
		if d := cpuTime() - start; i == 0 || d < min {
			min = d
		}
	}
	return min, nil
}

// CheckDescriptor reports the first way d breaks the descriptor contract: name, kind, version,
// payload types, billing unit, languages, model, and for every param a type, a description and a
// default that satisfies the param's own constraints; labels for a classify service; an output
// schema that compiles for an extract service.
func CheckDescriptor(d services.Descriptor) error {
	switch {
	case d.Name == "" || strings.ContainsAny(d.Name, " /"):
		return fmt.Errorf("name %q", d.Name)
	case !slices.Contains([]string{services.KindTransform, services.KindClassify, services.KindExtract}, d.Kind):
		return fmt.Errorf("kind %q", d.Kind)
	case d.Version < 1:
		return fmt.Errorf("version %d", d.Version)
	case d.Description == "":
		return errors.New("no description")
	case !slices.Contains(d.Accepts, services.TypeText):
		return fmt.Errorf("accepts %v, want text among them", d.Accepts)
	case d.Emits == "":
		return errors.New("no emits")
	case d.BillingUnit != "characters":
		return fmt.Errorf("billing_unit %q", d.BillingUnit)
	case len(d.Languages) == 0:
		return errors.New("no languages")
	case d.Model.ID == "" || d.Model.License == "":
		return fmt.Errorf("model %+v", d.Model)
	}
	if err := checkLanguages(d.Languages); err != nil {
		return err
	}
	for name, p := range d.Params {
		if err := checkParam(p); err != nil {
			return fmt.Errorf("param %q: %w", name, err)
		}
	}
	switch d.Kind {
	case services.KindClassify:
		if len(d.Labels) == 0 || !sort.StringsAreSorted(d.Labels) || len(slices.Compact(slices.Clone(d.Labels))) != len(d.Labels) {
			return fmt.Errorf("labels %v: want a sorted, non-empty set", d.Labels)
		}
		if _, ok := d.Params["threshold"]; !ok {
			return errors.New("classify service without a threshold param")
		}
	case services.KindExtract:
		if _, err := compileSchema(d); err != nil {
			return err
		}
	}
	if d.Kind != services.KindClassify && len(d.Labels) > 0 {
		return errors.New("labels on a service that is not classify")
	}
	if d.Kind != services.KindExtract && len(d.OutputSchema) > 0 {
		return errors.New("output_schema on a service that is not extract")
	}
	return nil
}

// checkLanguages accepts one of the words any, multilingual, unspecified, or distinct, sorted
// two-letter lower-case ISO 639-1 codes.
func checkLanguages(langs []string) error {
	if len(langs) == 1 && slices.Contains([]string{"any", "multilingual", "unspecified"}, langs[0]) {
		return nil
	}
	for i, l := range langs {
		if len(l) != 2 || l[0] < 'a' || l[0] > 'z' || l[1] < 'a' || l[1] > 'z' {
			return fmt.Errorf("language %q is not an ISO 639-1 code", l)
		}
		if i > 0 && langs[i-1] >= l {
			return fmt.Errorf("languages %v: want sorted and distinct", langs)
		}
	}
	return nil
}

func checkParam(p services.Param) error {
	if p.Description == "" {
		return errors.New("no description")
	}
	switch p.Type {
	case services.ParamString:
		s, ok := p.Default.(string)
		if !ok {
			return fmt.Errorf("default %#v is not a string", p.Default)
		}
		n := utf8.RuneCountInString(s)
		if (p.MinLength != nil && n < *p.MinLength) || (p.MaxLength != nil && n > *p.MaxLength) {
			return fmt.Errorf("default %q breaks the length bounds", s)
		}
		if len(p.Allowed) > 0 && !slices.Contains(p.Allowed, s) {
			return fmt.Errorf("default %q is not among the allowed values %v", s, p.Allowed)
		}
	case services.ParamNumber:
		f, ok := p.Default.(float64)
		if !ok {
			return fmt.Errorf("default %#v is not a float64", p.Default)
		}
		if (p.Minimum != nil && f < *p.Minimum) || (p.Maximum != nil && f > *p.Maximum) {
			return fmt.Errorf("default %v is out of bounds", f)
		}
	case services.ParamArray:
		items, ok := p.Default.([]string)
		if !ok {
			return fmt.Errorf("default %#v is not a []string", p.Default)
		}
		if p.Items != "string" {
			return fmt.Errorf("items %q, want string", p.Items)
		}
		if p.MaxLength != nil && len(items) > *p.MaxLength {
			return fmt.Errorf("default has %d items, more than %d", len(items), *p.MaxLength)
		}
		for _, it := range items {
			if len(p.Allowed) > 0 && !slices.Contains(p.Allowed, it) {
				return fmt.Errorf("default item %q is not among the allowed values %v", it, p.Allowed)
			}
			n := utf8.RuneCountInString(it)
			if (p.ItemMinLength != nil && n < *p.ItemMinLength) || (p.ItemMaxLength != nil && n > *p.ItemMaxLength) {
				return fmt.Errorf("default item %q breaks the item length bounds", it)
			}
		}
	default:
		return fmt.Errorf("type %q", p.Type)
	}
	return nil
}

// CheckResult reports the first way res breaks what d's kind promises for req: a transform
// leaves valid UTF-8 of the right type and a non-negative change count; a classify answer has a
// known verdict, a score in [0, 1] and only labels from the descriptor; extract data validates
// against the output schema. Classify and extract results pass the payload on unchanged.
func CheckResult(d services.Descriptor, req services.Request, res services.Result) error {
	switch d.Kind {
	case services.KindTransform:
		if res.Payload.Type != "" && res.Payload.Type != req.Payload.Type && d.Emits == services.EmitsSame {
			return fmt.Errorf("payload type %q, want %q", res.Payload.Type, req.Payload.Type)
		}
		if !utf8.ValidString(res.Payload.Value) {
			return errors.New("output is not valid UTF-8")
		}
		if res.Changes < 0 {
			return fmt.Errorf("changes = %d", res.Changes)
		}
		if res.Changes == 0 && res.Payload.Value != req.Payload.Value {
			return errors.New("output differs from input with changes = 0")
		}
	case services.KindClassify:
		if !slices.Contains([]string{services.VerdictPass, services.VerdictFlag, services.VerdictUncertain}, res.Verdict) {
			return fmt.Errorf("verdict %q", res.Verdict)
		}
		if !(res.Score >= 0 && res.Score <= 1) {
			return fmt.Errorf("score %v out of [0, 1]", res.Score)
		}
		for _, l := range res.Labels {
			if !slices.Contains(d.Labels, l) {
				return fmt.Errorf("label %q is not in the descriptor's labels %v", l, d.Labels)
			}
		}
	case services.KindExtract:
		sch, err := compileSchema(d)
		if err != nil {
			return err
		}
		raw, err := jsonMarshal(res.Data)
		if err != nil {
			return fmt.Errorf("data is not JSON: %w", err)
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
		if err != nil {
			return fmt.Errorf("data is not JSON: %w", err)
		}
		if err := sch.Validate(doc); err != nil {
			return fmt.Errorf("data %s does not match the output schema: %v", raw, err)
		}
	}
	if d.Kind != services.KindTransform && res.Payload != (services.Payload{}) && res.Payload != req.Payload {
		return errors.New("a classify or extract service changed the payload")
	}
	return nil
}
