package intent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluice-api/sluice/internal/errcode"
	"github.com/sluice-api/sluice/internal/pipeline"
	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/intent/model"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

var shared struct {
	once sync.Once
	svc  *Service
	err  error
}

// newService loads the embedded models once for the whole test binary.
func newService(t testing.TB) *Service {
	t.Helper()
	shared.once.Do(func() { shared.svc, shared.err = New() })
	if shared.err != nil {
		t.Fatalf("New: %v", shared.err)
	}
	return shared.svc
}

func run(t testing.TB, s *Service, catalog, text string) Data {
	t.Helper()
	res, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: text},
		Params:  services.Params{"catalog": catalog},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	d, ok := res.Data.(Data)
	if !ok {
		t.Fatalf("Data is %T, want intent.Data", res.Data)
	}
	return d
}

func intentOf(d Data) string {
	if d.Intent == nil {
		return "null"
	}
	return *d.Intent
}

// checkData is what every answer must satisfy beyond the output schema: the catalog is echoed,
// every name is an intent of that catalog, the answered intent is not among the alternatives,
// alternatives are ordered and (with the answer) are the best intents, and confidences add up.
func checkData(s *Service, catalog string) func(string, services.Result) error {
	return func(_ string, res services.Result) error {
		d, ok := res.Data.(Data)
		if !ok {
			return fmt.Errorf("data is %T", res.Data)
		}
		if d.Catalog != catalog {
			return fmt.Errorf("catalog %q, want %q", d.Catalog, catalog)
		}
		names := s.Intents(catalog)
		if len(d.Alternatives) != maxAlternatives {
			return fmt.Errorf("%d alternatives, want %d", len(d.Alternatives), maxAlternatives)
		}
		prev := 1.0
		if d.Intent != nil {
			if !slices.Contains(names, *d.Intent) {
				return fmt.Errorf("intent %q is not in catalog %s", *d.Intent, catalog)
			}
			prev = d.Confidence
		}
		total := 0.0
		for _, a := range d.Alternatives {
			if !slices.Contains(names, a.Intent) || (d.Intent != nil && a.Intent == *d.Intent) {
				return fmt.Errorf("bad alternative %q", a.Intent)
			}
			if a.Confidence > prev {
				return fmt.Errorf("alternatives out of order: %+v", d.Alternatives)
			}
			prev = a.Confidence
			total += a.Confidence
		}
		if d.Intent != nil {
			total += d.Confidence
		}
		if total > 1.0005 {
			return fmt.Errorf("probabilities add up to %v", total)
		}
		if d.Intent == nil && d.Confidence+d.Alternatives[0].Confidence < 0.999 {
			return fmt.Errorf("null confidence %v is not 1 - %v", d.Confidence, d.Alternatives[0].Confidence)
		}
		return nil
	}
}

func TestConformance(t *testing.T) {
	s := newService(t)
	for _, catalog := range []string{CatalogAssistant, CatalogBanking} {
		t.Run(catalog, func(t *testing.T) {
			servicetest.Run(t, s, servicetest.Config{
				Params: services.Params{"catalog": catalog},
				Inputs: []string{"set an alarm for 6 am", "my card has not arrived yet", "what's the weather in Paris?"},
				Check:  checkData(s, catalog),
			})
		})
	}
}

func TestCatalogs(t *testing.T) {
	s := newService(t)
	if got := len(s.Intents(CatalogAssistant)); got != 150 {
		t.Fatalf("assistant has %d intents, want 150", got)
	}
	if got := len(s.Intents(CatalogBanking)); got != 77 {
		t.Fatalf("banking has %d intents, want 77", got)
	}
	if s.Intents("travel") != nil || s.Model("travel") != nil {
		t.Fatal("unknown catalog has intents")
	}
	t.Run("DefaultIsAssistant", func(t *testing.T) {
		res, err := s.Run(context.Background(), services.Request{Payload: services.Payload{Type: services.TypeText, Value: "play some jazz"}})
		if err != nil {
			t.Fatal(err)
		}
		if d := res.Data.(Data); d.Catalog != CatalogAssistant {
			t.Fatalf("catalog %q", d.Catalog)
		}
	})
	t.Run("UnknownCatalogRun", func(t *testing.T) {
		_, err := s.Run(context.Background(), services.Request{
			Payload: services.Payload{Type: services.TypeText, Value: "hello"},
			Params:  services.Params{"catalog": "travel"},
		})
		if err == nil {
			t.Fatal("unknown catalog accepted")
		}
	})
}

// The engine rejects an unknown catalog before the service runs, naming the known ones.
func TestUnknownCatalogIsInvalidParams(t *testing.T) {
	reg, err := services.NewRegistry(newService(t))
	if err != nil {
		t.Fatal(err)
	}
	e, err := pipeline.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	_, perr := e.Parse([]byte(`{"input":{"type":"text","value":"hi"},"pipeline":[{"id":"i","service":"routing.intent.map","params":{"catalog":"travel"}}]}`))
	if perr == nil || perr.Code != errcode.InvalidParams || perr.Param != "/pipeline/0/params/catalog" {
		t.Fatalf("error = %v, want invalid_params at /pipeline/0/params/catalog", perr)
	}
	for _, known := range []string{CatalogAssistant, CatalogBanking} {
		if !strings.Contains(perr.Message, known) {
			t.Fatalf("message %q does not list %q", perr.Message, known)
		}
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
		{"Translate", CatalogAssistant, "how would you say good night in german", "translate"},
		{"BookFlight", CatalogAssistant, "I need to book a flight from Boston to Denver next Friday", "book_flight"},
		{"Recipe", CatalogAssistant, "find me a recipe for vegetarian lasagna", "recipe"},
		{"CardArrival", CatalogBanking, "my new card still has not arrived in the post", "card_arrival"},
		{"ChangePIN", CatalogBanking, "how can I change the PIN of my card", "change_pin"},
		{"Terminate", CatalogBanking, "I want to close my account for good", "terminate_account"},
		{"ApplePay", CatalogBanking, "can I add my card to apple pay", "apple_pay_or_google_pay"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := run(t, s, tc.catalog, tc.text)
			if got := intentOf(d); got != tc.want {
				t.Fatalf("intent = %s (%.3f), want %s; alternatives %+v", got, d.Confidence, tc.want, d.Alternatives)
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
		{"Gibberish", CatalogAssistant, "zorblax quintuple fnargle wibbit"},
		{"CookingForBank", CatalogBanking, "how long should I roast a chicken in the oven"},
		{"MusicForBank", CatalogBanking, "play my workout playlist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if d := run(t, s, tc.catalog, tc.text); d.Intent != nil {
				t.Fatalf("intent = %q (%.3f), want null", *d.Intent, d.Confidence)
			}
		})
	}
}

// A long text is classified on its first model.Window code points.
func TestLongTextUsesWindow(t *testing.T) {
	s := newService(t)
	head := strings.Repeat("My new card still has not arrived in the post. ", model.Window/40)[:model.Window]
	for _, tail := range []string{"", strings.Repeat(" play some jazz", 5000), strings.Repeat(" 4111 1111", 9000)} {
		if got, want := run(t, s, CatalogBanking, head+tail), run(t, s, CatalogBanking, head); !equalData(got, want) {
			t.Fatalf("text after the window changed the answer: %+v vs %+v", got, want)
		}
	}
}

func equalData(a, b Data) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

type heldoutCase struct {
	Catalog string  `json:"catalog"`
	Intent  *string `json:"intent"`
	Text    string  `json:"text"`
}

// TestHeldOut guards the figures of the hand-written held-out set (never used for training or
// tuning): at least 88% of the in-scope requests of each catalog mapped right, and at least 60%
// of the out-of-scope requests answered null. scripts/eval/intent prints the full figures.
func TestHeldOut(t *testing.T) {
	s := newService(t)
	raw, err := os.ReadFile("testdata/heldout.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	type tally struct{ in, inOK, out, outOK int }
	got := map[string]*tally{CatalogAssistant: {}, CatalogBanking: {}}
	for i, line := range strings.Split(strings.TrimSpace(string(raw)), "\n") {
		var c heldoutCase
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		n := got[c.Catalog]
		if n == nil {
			t.Fatalf("line %d: unknown catalog %q", i+1, c.Catalog)
		}
		d := run(t, s, c.Catalog, c.Text)
		switch {
		case c.Intent == nil:
			n.out++
			if d.Intent == nil {
				n.outOK++
			}
		default:
			if !slices.Contains(s.Intents(c.Catalog), *c.Intent) {
				t.Fatalf("line %d: %q is not a %s intent", i+1, *c.Intent, c.Catalog)
			}
			n.in++
			if d.Intent != nil && *d.Intent == *c.Intent {
				n.inOK++
			}
		}
	}
	for catalog, n := range got {
		inRate, outRate := float64(n.inOK)/float64(n.in), float64(n.outOK)/float64(n.out)
		t.Logf("%s: %d/%d in scope right (%.1f%%), %d/%d out of scope null (%.1f%%)", catalog, n.inOK, n.in, 100*inRate, n.outOK, n.out, 100*outRate)
		if n.in < 50 || n.out < 30 || inRate < 0.88 || outRate < 0.60 {
			t.Errorf("%s: in-scope %.3f (n=%d), out-of-scope null %.3f (n=%d); want >= 0.88 and >= 0.60", catalog, inRate, n.in, outRate, n.out)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := newService(t).Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: "where is my card"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

// FuzzRun runs any text through both catalogs: no panic, no error, and every answer passes the
// conformance checks.
func FuzzRun(f *testing.F) {
	for _, s := range servicetest.Seeds() {
		f.Add(s)
	}
	s := newService(f)
	d := s.Descriptor()
	f.Fuzz(func(t *testing.T, in string) {
		in = strings.ToValidUTF8(in, "\uFFFD")
		for _, catalog := range []string{CatalogAssistant, CatalogBanking} {
			cfg := servicetest.Config{Params: services.Params{"catalog": catalog}}
			req := cfg.Request(d, in)
			res, err := s.Run(context.Background(), req)
			if err != nil {
				t.Fatalf("%s: Run(%q): %v", catalog, in, err)
			}
			if err := servicetest.CheckResult(d, req, res); err != nil {
				t.Fatalf("%s: Run(%q): %v", catalog, in, err)
			}
			if err := checkData(s, catalog)(in, res); err != nil {
				t.Fatalf("%s: Run(%q): %v", catalog, in, err)
			}
		}
	})
}

func benchRun(b *testing.B, catalog, text string) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: text}, Params: services.Params{"catalog": catalog}}
	ctx := context.Background()
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Run(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRunUtterance maps one everyday request.
func BenchmarkRunUtterance(b *testing.B) {
	b.Run("assistant", func(b *testing.B) {
		benchRun(b, CatalogAssistant, "Can you set an alarm for seven thirty tomorrow morning?")
	})
	b.Run("banking", func(b *testing.B) {
		benchRun(b, CatalogBanking, "I ordered a card two weeks ago and it still hasn't arrived.")
	})
}

// BenchmarkRun100K maps 100,000 characters of prose (only the window is classified).
func BenchmarkRun100K(b *testing.B) {
	b.Run("assistant", func(b *testing.B) { benchRun(b, CatalogAssistant, servicetest.Prose(100_000)) })
	b.Run("banking", func(b *testing.B) { benchRun(b, CatalogBanking, servicetest.Prose(100_000)) })
}

// BenchmarkAdversarial is the adversarial table: 100,000-character hostile inputs against prose.
func BenchmarkAdversarial(b *testing.B) {
	servicetest.Bench(b, newService(b), servicetest.Config{}, 100_000)
}

func BenchmarkNew(b *testing.B) {
	for b.Loop() {
		if _, err := New(); err != nil {
			b.Fatal(err)
		}
	}
}
