package langid

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/sluice-api/sluice/internal/services"
)

func newService(t testing.TB) *Service {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func detect(t testing.TB, s *Service, text string, candidates []string) Detection {
	t.Helper()
	res, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: text},
		Params:  services.Params{"candidates": candidates},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	d, ok := res.Data.(Detection)
	if !ok {
		t.Fatalf("Data is %T, want Detection", res.Data)
	}
	return d
}

func compileSchema(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("schema: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output.json", doc); err != nil {
		t.Fatalf("add schema: %v", err)
	}
	sch, err := c.Compile("output.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func TestDetect(t *testing.T) {
	s := newService(t)
	sch := compileSchema(t, s.Descriptor().OutputSchema)
	for _, tc := range []struct {
		name       string
		text       string
		candidates []string
		want       string
	}{
		{"English", "The quick brown fox jumps over the lazy dog while the children watch from the window.", nil, "en"},
		{"German", "Der schnelle braune Fuchs springt über den faulen Hund, während die Kinder zusehen.", nil, "de"},
		{"French", "Le renard brun rapide saute par-dessus le chien paresseux pendant que les enfants regardent.", nil, "fr"},
		{"Spanish", "El rápido zorro marrón salta sobre el perro perezoso mientras los niños miran por la ventana.", nil, "es"},
		{"Russian", "Быстрая коричневая лиса прыгает через ленивую собаку, а дети смотрят в окно.", nil, "ru"},
		{"Japanese", "今日はとても良い天気ですね。", nil, "ja"},
		{"Greek", "Η γρήγορη καφέ αλεπού πηδάει πάνω από τον τεμπέλη σκύλο.", nil, "el"},
		{"Empty", "", nil, "und"},
		{"TooShort", "ab", nil, "und"},
		{"NoLetters", "12345 !!! 67890 ???", nil, "und"},
		{"MixedScriptsMajority", "Быстрая коричневая лиса прыгает через ленивую собаку, а дети смотрят в окно. OK, fine.", nil, "ru"},
		{"CandidatesRestrict", "The quick brown fox jumps over the lazy dog.", []string{"de", "nl"}, "nl"},
		{"CandidateScriptMismatch", "Быстрая коричневая лиса прыгает через ленивую собаку.", []string{"en", "fr"}, "und"},
		{"ZeroWidth", "The\u200b quick brown fox jumps over the lazy dog near the river bank.", nil, "en"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := detect(t, s, tc.text, tc.candidates)
			if d.Language != tc.want {
				t.Fatalf("language = %q (%+v), want %q", d.Language, d, tc.want)
			}
			if d.Language == "und" && (d.Confidence != 0 || len(d.Alternatives) != 0) {
				t.Fatalf("und with confidence %v and alternatives %v", d.Confidence, d.Alternatives)
			}
			if tc.candidates != nil && d.Language != "und" && !slices.Contains(tc.candidates, d.Language) {
				t.Fatalf("language %q not among candidates %v", d.Language, tc.candidates)
			}
			prev := d.Confidence
			for _, a := range d.Alternatives {
				if a.Language == d.Language || a.Confidence > prev || a.Confidence < MinAlternative {
					t.Fatalf("bad alternatives %+v", d)
				}
				prev = a.Confidence
			}
			if len(d.Alternatives) > MaxAlternatives {
				t.Fatalf("%d alternatives", len(d.Alternatives))
			}
			validate(t, sch, d)
		})
	}
}

func validate(t *testing.T, sch *jsonschema.Schema, d Detection) {
	t.Helper()
	raw, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("data %s does not validate: %v", raw, err)
	}
}

func TestAlternativesOffered(t *testing.T) {
	s := newService(t)
	// Russian and Bulgarian share many trigrams: the detector is unsure, so runner-ups appear.
	d := detect(t, s, "Быстрая коричневая лиса прыгает через ленивую собаку, а дети смотрят в окно.", nil)
	if d.Language == "und" || len(d.Alternatives) == 0 {
		t.Fatalf("want a language with alternatives, got %+v", d)
	}
	for _, a := range d.Alternatives {
		if !slices.Contains(Codes(), a.Language) {
			t.Fatalf("alternative %q not a supported code", a.Language)
		}
	}
}

func TestDescriptor(t *testing.T) {
	s := newService(t)
	d := s.Descriptor()
	if d.Kind != services.KindExtract || d.Version != 1 || d.Model.ID != "whatlanggo-1.0.1" || d.Model.License != "MIT" {
		t.Errorf("descriptor = %+v", d)
	}
	if !slices.Equal(d.Languages, Codes()) || !slices.IsSorted(d.Languages) {
		t.Errorf("languages = %v", d.Languages)
	}
	for _, c := range d.Languages {
		if len(c) != 2 {
			t.Errorf("language code %q is not ISO 639-1", c)
		}
	}
	p := d.Params["candidates"]
	if p.Type != services.ParamArray || p.Items != services.ParamString || !slices.Equal(p.Allowed, Codes()) {
		t.Errorf("candidates param = %+v", p)
	}
	if def, ok := p.Default.([]string); !ok || len(def) != 0 {
		t.Errorf("candidates default = %#v, want []string{}", p.Default)
	}
	compileSchema(t, d.OutputSchema)
}

func TestUnknownCandidate(t *testing.T) {
	s := newService(t)
	_, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: "hello world"},
		Params:  services.Params{"candidates": []string{"xx"}},
	})
	if err == nil {
		t.Fatal("unknown candidate accepted")
	}
}

func TestCanceledContext(t *testing.T) {
	s := newService(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: "hello world again"}}); err == nil {
		t.Fatal("Run with a canceled context succeeded")
	}
}

func TestConcurrent(t *testing.T) {
	s := newService(t)
	const text = "Der schnelle braune Fuchs springt über den faulen Hund."
	want := detect(t, s, text, nil)
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 10 {
				got := detect(t, s, text, nil)
				if got.Language != want.Language || got.Confidence != want.Confidence {
					t.Errorf("concurrent result %+v differs from %+v", got, want)
				}
			}
		})
	}
	wg.Wait()
}

func benchText(n int) string {
	const para = "The committee reviewed the proposal and agreed to publish the final report next month. "
	return strings.Repeat(para, n/len(para)+1)[:n]
}

func BenchmarkRun1KB(b *testing.B)   { benchRun(b, benchText(1<<10)) }
func BenchmarkRun100KB(b *testing.B) { benchRun(b, benchText(100_000)) }

func benchRun(b *testing.B, text string) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: text}, Params: services.Params{"candidates": []string{}}}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := s.Run(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
