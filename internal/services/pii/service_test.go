package pii

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
)

var key = []byte("test-token-key-0123456789abcdef")

func newRedact(t testing.TB) *Redact {
	t.Helper()
	r, err := NewRedact()
	if err != nil {
		t.Fatalf("NewRedact: %v", err)
	}
	return r
}

func newTokenize(t testing.TB) *Tokenize {
	t.Helper()
	s, err := NewTokenize()
	if err != nil {
		t.Fatalf("NewTokenize: %v", err)
	}
	return s
}

func textReq(text string, params services.Params) services.Request {
	return services.Request{
		Payload:  services.Payload{Type: services.TypeText, Value: text},
		Params:   params,
		Account:  "acct_1",
		TokenKey: key,
	}
}

func TestDescriptors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		svc    services.Service
		params []string
	}{
		{RedactName, newRedact(t), []string{"entities", "mask"}},
		{TokenizeName, newTokenize(t), []string{"entities"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.svc.Descriptor()
			if d.Name != tc.name || d.Kind != services.KindTransform || d.Version != 1 ||
				d.Emits != services.EmitsSame || d.BillingUnit != "characters" ||
				d.Model.ID != modelID || d.Model.License != "Apache-2.0" || d.Description == "" {
				t.Fatalf("descriptor = %+v", d)
			}
			if len(d.Accepts) != 1 || d.Accepts[0] != services.TypeText || len(d.Languages) != 1 || d.Languages[0] != "en" {
				t.Fatalf("accepts/languages = %v / %v", d.Accepts, d.Languages)
			}
			if len(d.Params) != len(tc.params) {
				t.Fatalf("params = %v, want %v", d.Params, tc.params)
			}
			for _, p := range tc.params {
				par, ok := d.Params[p]
				if !ok || par.Type == "" || par.Default == nil || par.Description == "" {
					t.Fatalf("param %s = %+v", p, par)
				}
			}
			ent := d.Params["entities"]
			if ent.Items != services.ParamString || len(ent.Allowed) != 7 {
				t.Fatalf("entities = %+v", ent)
			}
			if def := ent.Default.([]string); strings.Join(def, ",") != "name,email,id" {
				t.Fatalf("entities default = %v", def)
			}
			if _, err := json.Marshal(d); err != nil {
				t.Fatalf("marshal: %v", err)
			}
			// Descriptors are fresh values: changing one must not change the next.
			ent.Allowed[0] = "changed"
			if tc.svc.Descriptor().Params["entities"].Allowed[0] == "changed" {
				t.Fatal("descriptor shares state between calls")
			}
		})
	}
}

func TestRedact(t *testing.T) {
	r := newRedact(t)
	for _, tc := range []struct {
		name    string
		text    string
		params  services.Params
		want    string
		changes int
	}{
		{"Defaults", "Mail alice@example.com, I'm Sarah. Card 4111111111111111.", nil,
			"Mail [REDACTED], I'm [REDACTED]. Card 4111111111111111.", 2},
		{"CustomMask", "Mail alice@example.com", services.Params{"mask": "***"}, "Mail ***", 1},
		{"EmptyMask", "Mail alice@example.com!", services.Params{"mask": ""}, "Mail !", 1},
		{"SelectCardOnly", "Mail alice@example.com card 4111 1111 1111 1111",
			services.Params{"entities": []string{"card"}}, "Mail alice@example.com card [REDACTED]", 1},
		{"NoEntities", "Mail alice@example.com", services.Params{"entities": []string{}}, "Mail alice@example.com", 0},
		{"UTF8Around", "Привет 👋 alice@example.com — café 192.168.0.1 日本",
			services.Params{"entities": []string{"email", "ip"}}, "Привет 👋 [REDACTED] — café [REDACTED] 日本", 2},
		{"Nothing", "Nothing personal here.", nil, "Nothing personal here.", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := r.Run(context.Background(), textReq(tc.text, tc.params))
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if res.Payload.Value != tc.want || res.Changes != tc.changes || res.Payload.Type != services.TypeText {
				t.Fatalf("Run = %q (%d changes), want %q (%d)", res.Payload.Value, res.Changes, tc.want, tc.changes)
			}
		})
	}
}

func TestRedactErrors(t *testing.T) {
	r := newRedact(t)
	for _, tc := range []struct {
		name string
		req  services.Request
	}{
		{"MaskTooLong", textReq("x", services.Params{"mask": strings.Repeat("é", 65)})},
		{"UnknownEntity", textReq("x", services.Params{"entities": []string{"address"}})},
		{"NotText", services.Request{Payload: services.Payload{Type: "image", Value: "x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Run(context.Background(), tc.req); err == nil {
				t.Fatal("Run succeeded, want an error")
			}
		})
	}
}

var tokenRe = regexp.MustCompile(`\[(NAME|EMAIL|IBAN|ID|PHONE|CARD|IP)_[0-9a-f]{8}\]`)

func TestTokenize(t *testing.T) {
	s := newTokenize(t)
	text := "From alice@example.com to bob@example.com; cc ALICE@example.com and alice@example.com. IBAN GB82 WEST 1234 5698 7654 32."
	params := services.Params{"entities": []string{"email", "iban"}}
	run := func(t *testing.T, account string) services.Result {
		t.Helper()
		req := textReq(text, params)
		req.Account = account
		res, err := s.Run(context.Background(), req)
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		return res
	}
	first := run(t, "acct_1")

	t.Run("ShapeAndCount", func(t *testing.T) {
		toks := tokenRe.FindAllString(first.Payload.Value, -1)
		if len(toks) != 5 || first.Changes != 5 {
			t.Fatalf("tokens %q, changes %d; output %q", toks, first.Changes, first.Payload.Value)
		}
		if strings.Contains(first.Payload.Value, "@") || strings.Contains(first.Payload.Value, "WEST") {
			t.Fatalf("output still has personal data: %q", first.Payload.Value)
		}
	})
	t.Run("InstancePreserving", func(t *testing.T) {
		toks := tokenRe.FindAllString(first.Payload.Value, -1)
		// alice three times (case differs once), bob once, the IBAN once.
		if toks[0] != toks[2] || toks[0] != toks[3] || toks[0] == toks[1] {
			t.Fatalf("tokens %q: alice should share one token distinct from bob", toks)
		}
		if !strings.HasPrefix(toks[4], "[IBAN_") {
			t.Fatalf("last token %q, want an IBAN token", toks[4])
		}
	})
	t.Run("Map", func(t *testing.T) {
		toks := tokenRe.FindAllString(first.Payload.Value, -1)
		want := map[string]string{
			toks[0]: "alice@example.com",
			toks[1]: "bob@example.com",
			toks[4]: "GB82 WEST 1234 5698 7654 32",
		}
		if len(first.Map) != len(want) {
			t.Fatalf("map = %v, want %v", first.Map, want)
		}
		for k, v := range want {
			if first.Map[k] != v {
				t.Fatalf("map[%s] = %q, want %q", k, first.Map[k], v)
			}
		}
	})
	t.Run("DeterministicAcrossCalls", func(t *testing.T) {
		if again := run(t, "acct_1"); again.Payload.Value != first.Payload.Value {
			t.Fatalf("second call %q != first %q", again.Payload.Value, first.Payload.Value)
		}
	})
	t.Run("PerAccount", func(t *testing.T) {
		other := run(t, "acct_2")
		a, b := tokenRe.FindAllString(first.Payload.Value, -1), tokenRe.FindAllString(other.Payload.Value, -1)
		for i := range a {
			if a[i] == b[i] {
				t.Fatalf("token %d is the same for two accounts: %s", i, a[i])
			}
		}
	})
	t.Run("MatchesTokenFunc", func(t *testing.T) {
		want := Token(key, "acct_1", TypeEmail, "alice@example.com")
		if !strings.Contains(first.Payload.Value, want) {
			t.Fatalf("output %q lacks %s", first.Payload.Value, want)
		}
	})
}

func TestTokenDefinition(t *testing.T) {
	// The token is the HMAC-SHA256 of account, NUL, type, NUL, canonical value, truncated to 4 bytes.
	got := Token([]byte("k"), "a", TypeName, "Ada  Lovelace")
	if got != Token([]byte("k"), "a", TypeName, "Ada Lovelace") {
		t.Fatal("white space in a name changes its token")
	}
	if !regexp.MustCompile(`^\[NAME_[0-9a-f]{8}\]$`).MatchString(got) {
		t.Fatalf("token %q has the wrong shape", got)
	}
	for _, tc := range []struct{ name, typ, a, b string }{
		{"CardSeparators", TypeCard, "4111 1111 1111 1111", "4111-1111-1111-1111"},
		{"PhoneFormats", TypePhone, "(650) 253-0000", "+1 650 253 0000"},
		{"IPv6Forms", TypeIP, "2001:DB8:0:0:0:0:0:1", "2001:db8::1"},
		{"IBANGrouping", TypeIBAN, "gb82west12345698765432", "GB82 WEST 1234 5698 7654 32"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if x, y := Token(key, "a", tc.typ, tc.a), Token(key, "a", tc.typ, tc.b); x != y {
				t.Fatalf("%q -> %s but %q -> %s", tc.a, x, tc.b, y)
			}
		})
	}
}

func TestTokenizeErrors(t *testing.T) {
	s := newTokenize(t)
	req := textReq("alice@example.com", nil)
	req.TokenKey = nil
	if _, err := s.Run(context.Background(), req); !errors.Is(err, ErrNoTokenKey) {
		t.Fatalf("Run without key: err = %v, want ErrNoTokenKey", err)
	}
}

func TestRunHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, svc := range []services.Service{newRedact(t), newTokenize(t)} {
		t.Run(svc.Descriptor().Name, func(t *testing.T) {
			_, err := svc.Run(ctx, textReq(sampleText(1<<10), nil))
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("Run with cancelled ctx: err = %v, want context.Canceled", err)
			}
		})
	}
}

func TestConcurrentRuns(t *testing.T) {
	r, s := newRedact(t), newTokenize(t)
	text := sampleText(4 << 10)
	all := services.Params{"entities": Types()}
	wantR, err := r.Run(context.Background(), textReq(text, all))
	if err != nil {
		t.Fatal(err)
	}
	wantT, err := s.Run(context.Background(), textReq(text, all))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for i := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var svc services.Service = r
			want := wantR.Payload.Value
			if i%2 == 1 {
				svc, want = s, wantT.Payload.Value
			}
			res, err := svc.Run(context.Background(), textReq(text, all))
			if err != nil {
				errs <- err
				return
			}
			if res.Payload.Value != want {
				errs <- fmt.Errorf("goroutine %d: output differs", i)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// sampleText builds roughly n bytes of text with every entity type in it.
func sampleText(n int) string {
	const para = "Hello, my name is Maria Garcia and I'm writing about my account. " +
		"You can reach me at maria.garcia@example.com or +1 650-253-0000. " +
		"My IBAN is GB82 WEST 1234 5698 7654 32 and the card 4111 1111 1111 1111 was declined. " +
		"The login came from 192.168.10.24 and 2001:db8::7. SSN 536-22-1234. " +
		"Dr. Ada Lovelace will call back on Tuesday about order 12345, café ☕ 日本語. "
	var b strings.Builder
	for b.Len() < n {
		b.WriteString(para)
	}
	return b.String()
}

func BenchmarkRedact(b *testing.B) {
	r := newRedact(b)
	all := services.Params{"entities": Types()}
	for _, size := range []int{1 << 10, 100 << 10} {
		text := sampleText(size)
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if _, err := r.Run(context.Background(), textReq(text, all)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkTokenize(b *testing.B) {
	s := newTokenize(b)
	all := services.Params{"entities": Types()}
	text := sampleText(100 << 10)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := s.Run(context.Background(), textReq(text, all)); err != nil {
			b.Fatal(err)
		}
	}
}
