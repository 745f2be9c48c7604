package intent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
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

func run(t testing.TB, s *Service, catalog, text string) Data {
	t.Helper()
	params := services.Params{}
	if catalog != "" {
		params["catalog"] = catalog
	}
	res, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: text},
		Params:  params,
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	d, ok := res.Data.(Data)
	if !ok {
		t.Fatalf("Data is %T, want intent.Data", res.Data)
	}
	if res.Payload.Value != text {
		t.Fatalf("payload changed")
	}
	return d
}

func intentOf(d Data) string {
	if d.Intent == nil {
		return "<null>"
	}
	return *d.Intent
}

func TestDescriptor(t *testing.T) {
	d := newService(t).Descriptor()
	if d.Name != Name || d.Kind != services.KindExtract || d.Version != 1 || d.Emits != services.EmitsSame ||
		d.BillingUnit != "characters" || d.Description == "" || d.Model.ID != ModelID || d.Model.License == "" {
		t.Fatalf("descriptor incomplete: %+v", d)
	}
	if len(d.Accepts) != 1 || d.Accepts[0] != services.TypeText || len(d.Languages) != 1 || d.Languages[0] != "en" {
		t.Fatalf("accepts %v languages %v", d.Accepts, d.Languages)
	}
	p, ok := d.Params["catalog"]
	if !ok || p.Type != services.ParamString || p.Default != DefaultCatalog || p.Description == "" ||
		strings.Join(p.Allowed, ",") != "assistant,banking" {
		t.Fatalf("catalog param = %+v", p)
	}
	compileSchema(t, d.OutputSchema)
}

func TestCatalogs(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name, catalog, want string
		intents             int
	}{
		{"Default", "", CatalogAssistant, 150},
		{"Assistant", CatalogAssistant, CatalogAssistant, 150},
		{"Banking", CatalogBanking, CatalogBanking, 77},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := run(t, s, tc.catalog, "please freeze my bank account")
			if d.Catalog != tc.want {
				t.Fatalf("catalog = %q, want %q", d.Catalog, tc.want)
			}
			if got := len(s.Intents(tc.want)); got != tc.intents {
				t.Fatalf("%d intents, want %d", got, tc.intents)
			}
			names := map[string]bool{}
			for _, n := range s.Intents(tc.want) {
				names[n] = true
			}
			if d.Intent != nil && !names[*d.Intent] {
				t.Fatalf("intent %q is not in catalog %s", *d.Intent, tc.want)
			}
			for _, a := range d.Alternatives {
				if !names[a.Intent] {
					t.Fatalf("alternative %q is not in catalog %s", a.Intent, tc.want)
				}
			}
		})
	}
}

func TestUnknownCatalog(t *testing.T) {
	_, err := newService(t).Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: "hello"},
		Params:  services.Params{"catalog": "travel"},
	})
	if err == nil {
		t.Fatal("unknown catalog accepted")
	}
}

// The sentences are written for this test, not taken from the data sets.
func TestKnownUtterances(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name, catalog, text, want string
	}{
		{"Weather", CatalogAssistant, "Will I need an umbrella in Lisbon tomorrow, is rain forecast?", "weather"},
		{"Timer", CatalogAssistant, "start a countdown timer for twelve minutes", "timer"},
		{"Joke", CatalogAssistant, "make me laugh with a funny joke", "tell_joke"},
		{"Translate", CatalogAssistant, "how would you say good night in german", "translate"},
		{"BookFlight", CatalogAssistant, "I need to book a flight from Boston to Denver next Friday", "book_flight"},
		{"Balance", CatalogAssistant, "how much money is left in my checking account", "balance"},
		{"Recipe", CatalogAssistant, "find me a recipe for vegetarian lasagna", "recipe"},
		{"LostCard", CatalogAssistant, "I lost my credit card, please report it", "report_lost_card"},
		{"CardArrival", CatalogBanking, "my new card still has not arrived in the post", "card_arrival"},
		{"ChangePIN", CatalogBanking, "how can I change the PIN of my card", "change_pin"},
		{"TopUpFailed", CatalogBanking, "my attempt to top up my account failed", "top_up_failed"},
		{"Terminate", CatalogBanking, "I want to close my account for good", "terminate_account"},
		{"ApplePay", CatalogBanking, "can I add my card to apple pay", "apple_pay_or_google_pay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := run(t, s, tc.catalog, tc.text)
			if got := intentOf(d); got != tc.want {
				t.Fatalf("intent = %s (%.3f), want %s; alternatives %+v", got, d.Confidence, tc.want, d.Alternatives)
			}
			if d.Confidence <= 0 || d.Confidence > 1 {
				t.Fatalf("confidence %v out of (0, 1]", d.Confidence)
			}
			if len(d.Alternatives) != maxAlternatives {
				t.Fatalf("%d alternatives, want %d", len(d.Alternatives), maxAlternatives)
			}
			prev := d.Confidence
			for _, a := range d.Alternatives {
				if a.Intent == tc.want || a.Confidence > prev {
					t.Fatalf("alternatives not runner-ups in order: %+v", d.Alternatives)
				}
				prev = a.Confidence
			}
		})
	}
}

func TestOutOfScope(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name, catalog, text string
	}{
		{"Empty", CatalogAssistant, ""},
		{"Punctuation", CatalogBanking, "?!... --- !!!"},
		{"Biology", CatalogAssistant, "photosynthesis converts sunlight into chemical energy in chloroplasts"},
		{"Gibberish", CatalogAssistant, "zorblax quintuple fnargle wibbit"},
		{"CookingForBank", CatalogBanking, "how long should I roast a chicken in the oven"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := run(t, s, tc.catalog, tc.text)
			if d.Intent != nil {
				t.Fatalf("intent = %q (%.3f), want null", *d.Intent, d.Confidence)
			}
			if d.Confidence <= 0 || d.Confidence > 1 {
				t.Fatalf("confidence %v out of (0, 1]", d.Confidence)
			}
		})
	}
}

func TestDataMatchesSchema(t *testing.T) {
	s := newService(t)
	sch := compileSchema(t, s.Descriptor().OutputSchema)
	for _, tc := range []struct{ name, catalog, text string }{
		{"InScope", CatalogAssistant, "set an alarm for 6 am"},
		{"Null", CatalogAssistant, ""},
		{"Banking", CatalogBanking, "where is my card"},
		{"NonLatin", CatalogAssistant, "Привет, как дела? 你好"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(run(t, s, tc.catalog, tc.text))
			if err != nil {
				t.Fatal(err)
			}
			inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			if err := sch.Validate(inst); err != nil {
				t.Fatalf("%s does not validate: %v", b, err)
			}
		})
	}
	t.Run("RejectsExtraField", func(t *testing.T) {
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(
			`{"catalog":"assistant","intent":null,"confidence":0.5,"alternatives":[],"text":"x"}`))
		if err != nil {
			t.Fatal(err)
		}
		if sch.Validate(inst) == nil {
			t.Fatal("schema accepted an extra property")
		}
	})
}

func compileSchema(t *testing.T, raw json.RawMessage) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("schema is not JSON: %v", err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("output.json", doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("output.json")
	if err != nil {
		t.Fatalf("compile schema: %v", err)
	}
	return sch
}

func TestConcurrentRuns(t *testing.T) {
	s := newService(t)
	texts := []string{"what time is it in tokyo", "transfer 50 dollars to my savings", "", "play some jazz"}
	want := make([]string, len(texts))
	for i, txt := range texts {
		b, _ := json.Marshal(run(t, s, "", txt))
		want[i] = string(b)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for g := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 20 {
				i := (g + j) % len(texts)
				res, err := s.Run(context.Background(), services.Request{Payload: services.Payload{Type: services.TypeText, Value: texts[i]}})
				if err != nil {
					errs <- err.Error()
					return
				}
				if b, _ := json.Marshal(res.Data); string(b) != want[i] {
					errs <- "result differs under concurrency: " + string(b)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

func TestCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newService(t).Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: strings.Repeat("word ", 20000)}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestLargeInput(t *testing.T) {
	d := run(t, newService(t), CatalogBanking, largeInput())
	if d.Confidence < 0 || d.Confidence > 1 || len(d.Alternatives) > maxAlternatives {
		t.Fatalf("bad result for a large input: %+v", d)
	}
}

// largeInput is 100,000 code points of mixed text.
func largeInput() string {
	var b strings.Builder
	for b.Len() < 100_000 {
		b.WriteString("Hello, I would like to know why my card payment was declined at the shop yesterday. ")
	}
	return b.String()[:100_000]
}

func BenchmarkRunShort(b *testing.B) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: "can you set an alarm for seven thirty tomorrow morning"}}
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRunShortParallel(b *testing.B) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: "my card has not arrived yet"}, Params: services.Params{"catalog": CatalogBanking}}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.Run(context.Background(), req); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

func BenchmarkRun100KB(b *testing.B) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: largeInput()}}
	ctx := context.Background()
	b.SetBytes(int64(len(req.Payload.Value)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
