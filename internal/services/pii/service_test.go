package pii

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
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
		{RedactName, newRedact(t), []string{"allow", "deny", "entities", "mask", "name_recall"}},
		{TokenizeName, newTokenize(t), []string{"allow", "deny", "entities", "name_recall"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.svc.Descriptor()
			if err := servicetest.CheckDescriptor(d); err != nil {
				t.Fatal(err)
			}
			if d.Name != tc.name || d.Version != version || d.Model.ID != modelID || d.Model.License != "Apache-2.0" {
				t.Fatalf("descriptor = %+v", d)
			}
			if !slices.Equal(d.Languages, []string{"de", "en", "es", "fr", "it", "nl", "pl", "pt"}) {
				t.Fatalf("languages = %v", d.Languages)
			}
			var params []string
			for p := range d.Params {
				params = append(params, p)
			}
			sort.Strings(params)
			if !slices.Equal(params, tc.params) {
				t.Fatalf("params = %v, want %v", params, tc.params)
			}
			ent := d.Params["entities"]
			if !slices.Equal(ent.Allowed, []string{"email", "iban", "card", "id", "ip", "phone", "name"}) {
				t.Fatalf("entities allowed = %v", ent.Allowed)
			}
			if def := ent.Default.([]string); strings.Join(def, ",") != "name,email,id" {
				t.Fatalf("entities default = %v", def)
			}
			for name, limits := range map[string][3]int{"allow": {maxAllow, 1, maxAllowLen}, "deny": {maxDeny, 1, maxDenyLen}} {
				p := d.Params[name]
				if p.Type != services.ParamArray || p.Items != services.ParamString || *p.MaxLength != limits[0] ||
					*p.ItemMinLength != limits[1] || *p.ItemMaxLength != limits[2] || len(p.Default.([]string)) != 0 {
					t.Fatalf("param %s = %+v", name, p)
				}
				if !strings.Contains(p.Description, fmt.Sprint(limits[0])) || !strings.Contains(p.Description, fmt.Sprint(limits[2])) {
					t.Fatalf("param %s does not document its limits: %q", name, p.Description)
				}
			}
			for _, typ := range Types() {
				if !strings.Contains(d.Description, typ) {
					t.Fatalf("description does not document %s", typ)
				}
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
		{"Defaults", "Mail alice@example.com, my name is Sarah Connor. Card 4111111111111111.", nil,
			"Mail [REDACTED], my name is [REDACTED]. Card 4111111111111111.", 2},
		{"CustomMask", "Mail alice@example.com", services.Params{"mask": "***"}, "Mail ***", 1},
		{"EmptyMask", "Mail alice@example.com!", services.Params{"mask": ""}, "Mail !", 1},
		{"SelectCardOnly", "Mail alice@example.com card 4111 1111 1111 1111",
			services.Params{"entities": []string{"card"}}, "Mail alice@example.com card [REDACTED]", 1},
		{"NoEntities", "Mail alice@example.com", services.Params{"entities": []string{}}, "Mail alice@example.com", 0},
		{"UTF8Around", "Привет 👋 alice@example.com — café 192.168.0.1 日本",
			services.Params{"entities": []string{"email", "ip"}}, "Привет 👋 [REDACTED] — café [REDACTED] 日本", 2},
		{"Allow", "Mail support@acme.com or alice@example.com",
			services.Params{"entities": []string{"email"}, "allow": []string{"Support@Acme.com"}}, "Mail support@acme.com or [REDACTED]", 1},
		{"Deny", "Project Falcon ships in May; ask falcon team.",
			services.Params{"entities": []string{}, "deny": []string{"project falcon", "falcon team"}}, "[REDACTED] ships in May; ask [REDACTED].", 2},
		{"Nothing", "Nothing personal here.", nil, "Nothing personal here.", 0},
		// Greetings in other scripts are not names (the hostile mixed-script text of servicetest).
		{"OtherScriptGreetings", "Hello Привет 你好 مرحبا שלום こんにちは Hello Привет",
			services.Params{"entities": []string{"name"}}, "Hello Привет 你好 مرحبا שלום こんにちは Hello Привет", 0},
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
		{"MaskTooLong", textReq("x", services.Params{"mask": strings.Repeat("é", maxMaskLen+1)})},
		{"MaskControl", textReq("x", services.Params{"mask": "[\x00]"})},
		{"MaskDelete", textReq("x", services.Params{"mask": "[\x7f]"})},
		{"MaskLineSeparator", textReq("x", services.Params{"mask": "[\u2028]"})},
		{"MaskParagraphSeparator", textReq("x", services.Params{"mask": "[\u2029]"})},
		{"UnknownEntity", textReq("x", services.Params{"entities": []string{"address"}})},
		{"CustomIsNotAnEntity", textReq("x", services.Params{"entities": []string{"custom"}})},
		{"TooManyDeny", textReq("x", services.Params{"deny": slices.Repeat([]string{"a"}, maxDeny+1)})},
		{"DenyItemTooLong", textReq("x", services.Params{"deny": []string{strings.Repeat("a", maxDenyLen+1)}})},
		{"EmptyAllowItem", textReq("x", services.Params{"allow": []string{""}})},
		{"TooManyAllow", textReq("x", services.Params{"allow": slices.Repeat([]string{"a"}, maxAllow+1)})},
		{"NotText", services.Request{Payload: services.Payload{Type: "image", Value: "x"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := r.Run(context.Background(), tc.req); err == nil {
				t.Fatal("Run succeeded, want an error")
			}
		})
	}
}

// TestOutputBound: with Request.MaxOutputChars set, a redact or tokenize step whose output would
// be longer answers ErrOutputTooLarge (a mask or tokens longer than what they replace grow the
// text), and an output of exactly the bound is still returned.
func TestOutputBound(t *testing.T) {
	redact, err := NewRedact()
	if err != nil {
		t.Fatal(err)
	}
	tok := newTokenize(t)
	words := strings.Repeat("a ", 49) + "a" // 50 words, 99 characters
	mask8 := services.Params{"entities": []string{}, "deny": []string{"a"}, "mask": "12345678"}
	for _, tc := range []struct {
		name string
		svc  services.Service
		req  services.Request
		max  int
		want int // output characters; 0: ErrOutputTooLarge
	}{
		{"RedactGrowsPastBound", redact, textReq(words, mask8), 400, 0},
		{"RedactExactlyAtBound", redact, textReq(words, mask8), 50*8 + 49, 50*8 + 49},
		{"RedactShrinks", redact, textReq(words, services.Params{"entities": []string{}, "deny": []string{"a"}, "mask": ""}), 99, 49},
		{"RedactUnbounded", redact, textReq(words, mask8), 0, 50*8 + 49},
		{"TokenizeGrowsPastBound", tok, textReq(words, services.Params{"entities": []string{}, "deny": []string{"a"}}), 500, 0},
		{"TokenizeUnderBound", tok, textReq(words, services.Params{"entities": []string{}, "deny": []string{"a"}}), 50*17 + 49, 50*17 + 49},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := tc.req
			req.MaxOutputChars = tc.max
			res, err := tc.svc.Run(context.Background(), req)
			if tc.want == 0 {
				if !errors.Is(err, services.ErrOutputTooLarge) {
					t.Fatalf("err = %v, want ErrOutputTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if n := utf8.RuneCountInString(res.Payload.Value); n != tc.want {
				t.Fatalf("output has %d characters, want %d", n, tc.want)
			}
		})
	}
}

var tokenRe = regexp.MustCompile(`\[(NAME|EMAIL|IBAN|ID|PHONE|CARD|IP|CUSTOM)_[0-9a-f]{8}\]`)

func TestTokenize(t *testing.T) {
	s := newTokenize(t)
	text := "From alice@example.com to bob@example.com; cc ALICE@example.com and alice@example.com. IBAN GB82 WEST 1234 5698 7654 32. Codename Bluebird."
	params := services.Params{"entities": []string{"email", "iban"}, "deny": []string{"bluebird"}}
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
		if len(toks) != 6 || first.Changes != 6 {
			t.Fatalf("tokens %q, changes %d; output %q", toks, first.Changes, first.Payload.Value)
		}
		if strings.Contains(first.Payload.Value, "@") || strings.Contains(first.Payload.Value, "WEST") || strings.Contains(first.Payload.Value, "Bluebird") {
			t.Fatalf("output still has personal data: %q", first.Payload.Value)
		}
	})
	t.Run("InstancePreserving", func(t *testing.T) {
		toks := tokenRe.FindAllString(first.Payload.Value, -1)
		// alice three times (case differs once), bob once, the IBAN once, the deny value once.
		if toks[0] != toks[2] || toks[0] != toks[3] || toks[0] == toks[1] {
			t.Fatalf("tokens %q: alice should share one token distinct from bob", toks)
		}
		if !strings.HasPrefix(toks[4], "[IBAN_") || !strings.HasPrefix(toks[5], "[CUSTOM_") {
			t.Fatalf("tokens %q, want an IBAN and then a CUSTOM token", toks)
		}
	})
	t.Run("Map", func(t *testing.T) {
		toks := tokenRe.FindAllString(first.Payload.Value, -1)
		want := map[string]string{
			toks[0]: "alice@example.com",
			toks[1]: "bob@example.com",
			toks[4]: "GB82 WEST 1234 5698 7654 32",
			toks[5]: "Bluebird",
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
		for _, want := range []string{Token(key, "acct_1", TypeEmail, "alice@example.com"), Token(key, "acct_1", TypeCustom, "BLUEBIRD")} {
			if !strings.Contains(first.Payload.Value, want) {
				t.Fatalf("output %q lacks %s", first.Payload.Value, want)
			}
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
	// v1 tokens stay the same: a client's stored tokens keep resolving.
	if v1 := Token([]byte("k"), "a", TypeEmail, "Alice@Example.com"); v1 != "[EMAIL_"+hmacHex("k", "a\x00email\x00alice@example.com")+"]" {
		t.Fatalf("email token %s changed", v1)
	}
	for _, tc := range []struct{ name, typ, a, b string }{
		{"CardSeparators", TypeCard, "4111 1111 1111 1111", "4111-1111-1111-1111"},
		{"PhoneFormats", TypePhone, "(650) 253-0000", "+1 650 253 0000"},
		{"PhoneNationalAndInternational", TypePhone, "020 7946 0000", "+44 20 7946 0000"},
		{"PhoneDoubleZero", TypePhone, "0044 20 7946 0000", "+44 (0)20 7946 0000"},
		{"IPv6Forms", TypeIP, "2001:DB8:0:0:0:0:0:1", "2001:db8::1"},
		{"IBANGrouping", TypeIBAN, "gb82west12345698765432", "GB82 WEST 1234 5698 7654 32"},
		{"IDSeparators", TypeID, "ab 12 34 56 c", "AB123456C"},
		{"CustomCase", TypeCustom, "Project  Falcon", "PROJECT FALCON"},
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

// TestConformance runs the shared service suite (descriptor, result shapes, concurrency,
// cancellation, linear time on hostile text) on both services, with every entity type and with
// the defaults, and checks the redaction and tokenization invariants on every input.
func TestConformance(t *testing.T) {
	all := services.Params{"entities": Types(), "deny": []string{"project falcon", "ACME-42"}}
	for _, tc := range []struct {
		name string
		svc  services.Service
	}{{"Redact", newRedact(t)}, {"Tokenize", newTokenize(t)}} {
		for _, p := range []struct {
			name   string
			params services.Params
		}{{"AllEntities", all}, {"Defaults", nil}} {
			t.Run(tc.name+"/"+p.name, func(t *testing.T) {
				servicetest.Run(t, tc.svc, conformanceConfig(tc.svc, p.params))
			})
		}
	}
}

func conformanceConfig(svc services.Service, params services.Params) servicetest.Config {
	cfg := servicetest.Config{Params: params, Inputs: []string{mixedText(1000, 1), mixedText(5000, 2)}}
	d := svc.Descriptor()
	cfg.Check = func(in string, res services.Result) error {
		return checkInvariants(d, cfg.Request(d, in), res)
	}
	return cfg
}

// checkInvariants checks a result against the spans Find reports for the same request: a
// redaction is the input with exactly those spans replaced by the mask (so none of the values it
// reported remains where it was, and changes counts them); a tokenization's map restores the
// input, each token standing for the first spelling of its value (other spellings of one value
// are canonically equal to it).
func checkInvariants(d services.Descriptor, req services.Request, res services.Result) error {
	in := req.Payload.Value
	opts, err := options(req.Params)
	if err != nil {
		return err
	}
	spans, err := find(context.Background(), in, opts)
	if err != nil {
		return err
	}
	if res.Changes != len(spans) {
		return fmt.Errorf("changes = %d, but %d spans were found", res.Changes, len(spans))
	}
	switch d.Name {
	case RedactName:
		mask := req.Params.String("mask")
		if want, _ := replace(in, spans, func(Span) string { return mask }, 0); res.Payload.Value != want {
			return fmt.Errorf("redacted output %q, want %q", res.Payload.Value, want)
		}
		if err := noneRemains(in, spans); err != nil {
			return err
		}
	case TokenizeName:
		restored := tokenRe.ReplaceAllStringFunc(res.Payload.Value, func(tok string) string {
			if v, ok := res.Map[tok]; ok {
				return v
			}
			return tok
		})
		want, _ := replace(in, spans, func(s Span) string {
			return res.Map[Token(req.TokenKey, req.Account, s.Type, in[s.Start:s.End])]
		}, 0)
		if restored != want {
			return fmt.Errorf("the map restores %q, want %q", restored, want)
		}
		for _, s := range spans {
			v := in[s.Start:s.End]
			if first := res.Map[Token(req.TokenKey, req.Account, s.Type, v)]; Canonical(s.Type, first) != Canonical(s.Type, v) {
				return fmt.Errorf("token of %q maps to %q, another value", v, first)
			}
		}
		if len(res.Map) > len(spans) {
			return fmt.Errorf("map has %d entries for %d spans", len(res.Map), len(spans))
		}
	}
	return nil
}

// noneRemains checks that no value the detector reported (of minRepeat code points or more)
// is left anywhere in the text outside the reported spans as a whole word, ignoring case (names:
// as written).
func noneRemains(in string, spans []Span) error {
	var rest strings.Builder
	last := 0
	for _, s := range spans {
		rest.WriteString(in[last:s.Start])
		rest.WriteByte(0)
		last = s.End
	}
	rest.WriteString(in[last:])
	folded := strings.Map(foldRune, rest.String())
	for _, s := range spans {
		v := strings.TrimSpace(in[s.Start:s.End])
		if utf8.RuneCountInString(v) < minRepeat {
			continue
		}
		// Names are looked for again as written, other values in any case.
		hay, needle := folded, strings.Map(foldRune, v)
		if s.Type == TypeName {
			hay, needle = rest.String(), v
		}
		for off := 0; ; {
			i := strings.Index(hay[off:], needle)
			if i < 0 {
				break
			}
			i += off
			j := i + len(needle)
			first, _ := utf8.DecodeRuneInString(needle)
			lastR, _ := utf8.DecodeLastRuneInString(needle)
			if !(isAlnum(first) && isAlnum(runeBefore(hay, i))) && !(isAlnum(lastR) && isAlnum(runeAt(hay, j))) {
				return fmt.Errorf("reported value %q remains in the output at byte %d", v, i)
			}
			_, size := utf8.DecodeRuneInString(hay[i:])
			off = i + size
		}
	}
	return nil
}

// TestNameRecall: name_recall high runs the tagger at its high-recall point: it masks a name that
// is also a common word ("rose"), never fewer names than the standard point on the same texts,
// works for tokenize too, and an unknown value is refused.
func TestNameRecall(t *testing.T) {
	r, tk := newRedact(t), newTokenize(t)
	texts := []string{"met rose at the bar", "ask tomasz about it", "lunch with jenny and dave", "Nothing personal here."}
	run := func(s services.Service, text, recall string) services.Result {
		t.Helper()
		res, err := s.Run(context.Background(), textReq(text, services.Params{"entities": []string{"name"}, "name_recall": recall}))
		if err != nil {
			t.Fatalf("%s %q: %v", recall, text, err)
		}
		return res
	}
	if got := run(r, texts[0], "high").Payload.Value; got != "met [REDACTED] at the bar" {
		t.Fatalf("high recall: %q, want the name masked", got)
	}
	if got := run(tk, texts[0], "high"); got.Changes != 1 {
		t.Fatalf("tokenize at high recall: %d changes, want 1", got.Changes)
	}
	for _, text := range texts {
		std, high := run(r, text, "standard").Changes, run(r, text, "high").Changes
		if high < std {
			t.Fatalf("%q: %d names at high recall, %d at standard", text, high, std)
		}
	}
	if _, err := r.Run(context.Background(), textReq(texts[0], services.Params{"name_recall": "max"})); err == nil {
		t.Fatal("name_recall max: no error")
	}
}
