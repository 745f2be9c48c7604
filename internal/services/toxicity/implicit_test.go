package toxicity

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/servicetest"
	"github.com/sluice-api/sluice/internal/services/textclass"
)

func reportingList(tb testing.TB) *reporting {
	tb.Helper()
	r, err := newReporting(ReportingFile)
	if err != nil {
		tb.Fatalf("newReporting: %v", err)
	}
	return r
}

// clauses returns the texts of the implicit quotes implicitSpans finds in s.
func clauses(tb testing.TB, r *reporting, s string, mode ImplicitMode) []string {
	tb.Helper()
	spans, err := r.implicitSpans(context.Background(), s, quoteSpans(s), mode)
	if err != nil {
		tb.Fatalf("implicitSpans(%q): %v", s, err)
	}
	if err := checkImplicitSpans(s, quoteSpans(s), spans); err != nil {
		tb.Fatalf("implicitSpans(%q): %v", s, err)
	}
	out := []string{}
	for _, sp := range spans {
		out = append(out, s[sp[0]:sp[1]])
	}
	return out
}

// checkImplicitSpans checks what holds for the implicit quotes of every text: inside the text,
// on rune boundaries, sorted, not overlapping one another or a quoted passage, between
// minClause and maxClause words and at most maxClauseBytes.
func checkImplicitSpans(s string, explicit, spans [][4]int) error {
	last := 0
	for _, sp := range spans {
		if sp[0] != sp[2] || sp[1] != sp[3] || sp[0] < last || sp[1] <= sp[0] || sp[1] > len(s) {
			return fmt.Errorf("span %v out of order or outside the text (after %d, len %d)", sp, last, len(s))
		}
		if !utf8.RuneStart(s[sp[0]]) || sp[1] < len(s) && !utf8.RuneStart(s[sp[1]]) {
			return fmt.Errorf("span %v not on rune boundaries", sp)
		}
		if sp[1]-sp[0] > maxClauseBytes {
			return fmt.Errorf("span %v longer than %d bytes", sp, maxClauseBytes)
		}
		if n := len(foldWords(s[sp[0]:sp[1]])); n < minClause || n > maxClause {
			return fmt.Errorf("span %q has %d words", s[sp[0]:sp[1]], n)
		}
		for _, q := range explicit {
			if sp[0] < q[3] && q[2] < sp[1] {
				return fmt.Errorf("span %v overlaps the quoted passage %v", sp, q)
			}
		}
		last = sp[1]
	}
	return nil
}

func TestImplicitSpans(t *testing.T) {
	r := reportingList(t)
	long := "you said " + strings.Repeat("they are ", 20) + "bad"
	cases := []struct {
		name, text string
		all, cond  []string // clauses with ImplicitAll and ImplicitCondemned
	}{
		{"en/gerund subject, frame verb ends it", "Saying that immigrants are vermin is disgusting.",
			[]string{"immigrants are vermin"}, []string{"immigrants are vermin"}},
		{"en/endorsing, no condemning word", "I'm saying immigrants are vermin",
			[]string{"immigrants are vermin"}, []string{}},
		{"en/calling, two-word clause", "Calling women dumb is not ok.",
			[]string{"women dumb"}, []string{"women dumb"}},
		{"en/conjunction ends it", "you called me a pig because i'm fat, and that is rude",
			[]string{"me a pig"}, []string{}},
		{"en/stop before the construct", "stop calling trans people freaks",
			[]string{"trans people freaks"}, []string{"trans people freaks"}},
		{"en/construct of three words", "the idea that gay people are sick is an old lie",
			[]string{"gay people are sick"}, []string{"gay people are sick"}},
		{"en/condemning word only inside the clause", "I always say they are disgusting",
			[]string{"they are disgusting"}, []string{}},
		{"en/condemning word in the sentence before", "That is racist. You said they are thieves",
			[]string{"they are thieves"}, []string{}},
		{"en/condemning word in the next sentence", "You said they are thieves. That is racist.",
			[]string{"they are thieves"}, []string{"they are thieves"}},
		{"en/condemning word two sentences on", "You said they are thieves. Nice weather. That is racist.",
			[]string{"they are thieves"}, []string{}},
		{"en/one word is no clause", "He said so.", []string{}, []string{}},
		{"en/ordinary report", "He said nothing about it.", []string{"nothing about it"}, []string{}},
		{"en/no construct", "The meeting is at five, see you there.", []string{}, []string{}},
		{"en/construct at the end", "that is exactly what she said", []string{}, []string{}},
		{"en/construct before a comma", "you said, and I quote, nothing", []string{}, []string{}},
		{"en/quoted passage is not a clause", `you said "they are all thieves" and that is racist`,
			[]string{}, []string{}},
		{"en/clause stops at a quote", `calling them rats "as a joke" is not funny, it is racist`,
			[]string{"them rats"}, []string{"them rats"}},
		{"en/bounded length", long, []string{strings.Repeat("they are ", 12)[:len(strings.Repeat("they are ", 12))-1]}, []string{}},
		{"de/comma and dass", "Zu sagen, dass Flüchtlinge Ungeziefer sind, ist widerlich.",
			[]string{"Flüchtlinge Ungeziefer sind"}, []string{"Flüchtlinge Ungeziefer sind"}},
		{"de/comma ends it, condemnation in the next sentence", "Du nennst sie Parasiten, weil sie arm sind. Schäm dich.",
			[]string{"sie Parasiten"}, []string{"sie Parasiten"}},
		{"de/weil ends it", "Du nennst sie dumme Parasiten weil sie arm sind, das ist Hetze.",
			[]string{"sie dumme Parasiten"}, []string{"sie dumme Parasiten"}},
		{"de/verb-final construct takes the words before it", "Wer Frauen dumme Hühner nennt, sollte sich schämen.",
			[]string{"Wer Frauen dumme Hühner"}, []string{"Wer Frauen dumme Hühner"}},
		{"de/verb-final with zu, frame verb after it", "Flüchtlinge als Ratten zu bezeichnen ist entmenschlichend.",
			[]string{"Flüchtlinge als Ratten"}, []string{"Flüchtlinge als Ratten"}},
		{"de/verb-final starts after dass", "Dass du Frauen als dumm bezeichnest, ist sexistisch.",
			[]string{"du Frauen als dumm"}, []string{"du Frauen als dumm"}},
		{"de/verb-final passive", "Ich habe es satt, dass Migranten als Kakerlaken beschimpft werden.",
			[]string{"Migranten als Kakerlaken"}, []string{"Migranten als Kakerlaken"}},
		{"de/verb second: the clause follows", "Gestern bezeichnete er Flüchtlinge als Ratten. Widerlich.",
			[]string{"er Flüchtlinge als Ratten"}, []string{"er Flüchtlinge als Ratten"}},
		{"de/one word before a verb-final construct", "Er bezeichnet Flüchtlinge als Ratten, das ist Hetze.",
			[]string{"Flüchtlinge als Ratten"}, []string{"Flüchtlinge als Ratten"}},
		{"de/two words before a verb-final construct are its subject", "Alles, was du sagst, ist widerlich.",
			[]string{}, []string{}},
		{"de/repc takes a clause after a comma", "Du hast geschrieben, Schwarze seien Tiere. Das ist widerlich.",
			[]string{"Schwarze seien Tiere"}, []string{"Schwarze seien Tiere"}},
		{"de/repc takes a clause after a colon", "Die Behauptung: Schwule seien krank. Falsch.",
			[]string{"Schwule seien krank"}, []string{"Schwule seien krank"}},
		{"de/repc takes no clause after a bracket", "Du hast geschrieben (Schwarze seien Tiere). Widerlich.",
			[]string{}, []string{}},
		{"fr/elided que", "Dire qu'ils sont des rats est honteux.",
			[]string{"ils sont des rats"}, []string{"ils sont des rats"}},
		{"fr/traiter", "Arrête de traiter les femmes de connes.",
			[]string{"les femmes de connes"}, []string{"les femmes de connes"}},
		{"es/decir que", "Decir que los gitanos son ratas es repugnante.",
			[]string{"los gitanos son ratas"}, []string{"los gitanos son ratas"}},
		{"it/dire che", "Dire che gli immigrati sono parassiti è una vergogna.",
			[]string{"gli immigrati sono parassiti è una vergogna"}, []string{}},
		{"it/dici che, ma ends it", "Dici che i rom sono ladri, ma è razzismo.",
			[]string{"i rom sono ladri"}, []string{"i rom sono ladri"}},
		{"nl/zeggen dat", "Zeggen dat homo's ongedierte zijn is walgelijk.",
			[]string{"homo's ongedierte zijn"}, []string{"homo's ongedierte zijn"}},
		{"pt/dizer que", "Dizer que os ciganos são ladrões foi uma vergonha.",
			[]string{"os ciganos são ladrões"}, []string{"os ciganos são ladrões"}},
		{"pt/accents folded", "CHAMAR as MULHERES de burras é NOJENTO",
			[]string{"as MULHERES de burras é NOJENTO"}, []string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := clauses(t, r, c.text, ImplicitAll); !slices.Equal(got, c.all) {
				t.Errorf("all: %q, want %q", got, c.all)
			}
			if got := clauses(t, r, c.text, ImplicitCondemned); !slices.Equal(got, c.cond) {
				t.Errorf("condemned: %q, want %q", got, c.cond)
			}
			if got := clauses(t, r, c.text, ImplicitOff); len(got) != 0 {
				t.Errorf("off: %q, want none", got)
			}
		})
	}
}

// TestImplicitSpansHostile checks the bounds on inputs built to make a span finder do much
// work: runs of constructs with and without clauses, conjunctions, punctuation, one long word.
func TestImplicitSpansHostile(t *testing.T) {
	r := reportingList(t)
	cases := map[string]string{
		"constructs only":        strings.Repeat("said ", 5000),
		"construct and comma":    strings.Repeat("sagen, dass ", 3000),
		"construct clause":       strings.Repeat("you said they are vermin and ", 2000),
		"condemned clauses":      strings.Repeat("stop saying they are vermin, ", 2000),
		"no boundary at all":     "said " + strings.Repeat("word ", 20000),
		"ends only":              strings.Repeat("said because ", 4000),
		"long word":              "said " + strings.Repeat("x", 50000) + " and more words here",
		"punctuation":            strings.Repeat("said, . ! ? ; ", 4000),
		"apostrophes":            strings.Repeat("dire qu'il'l'l ", 3000),
		"quote marks":            strings.Repeat(`said "they are" `, 3000),
		"marks and accents":      strings.Repeat("dire que e\u0301te\u0301 ", 3000),
		"invalid utf-8":          strings.Repeat("said \xff\xfe they are ", 3000),
		"four-word constructs":   strings.Repeat("la idea de que ", 3000),
		"unclosed quote marks":   strings.Repeat(`said “they are `, 3000),
		"stem-like long words":   strings.Repeat("disgustingnessesssss ", 3000),
		"only separators":        strings.Repeat(" \t#@$%^&*", 5000),
		"letters split by dots":  strings.Repeat("s.a.i.d ", 5000),
		"verb-final constructs":  strings.Repeat("sie als Ratten zu bezeichnen ", 3000),
		"verb-final only":        strings.Repeat("nennen ", 5000),
		"verb-final long clause": strings.Repeat("wort ", 20000) + "bezeichnen, widerlich",
		"repc and commas":        strings.Repeat("gesagt, ", 5000),
	}
	for name, s := range cases {
		t.Run(name, func(t *testing.T) {
			for _, mode := range []ImplicitMode{ImplicitAll, ImplicitCondemned} {
				spans, err := r.implicitSpans(context.Background(), s, quoteSpans(s), mode)
				if err != nil {
					t.Fatal(err)
				}
				if err := checkImplicitSpans(s, quoteSpans(s), spans); err != nil {
					t.Fatalf("%v: %v", mode, err)
				}
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := r.implicitSpans(ctx, strings.Repeat("you said they are vermin ", 2000), nil, ImplicitAll)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	})
}

// scoreVermin stands in for the model when a quoted or reported passage is scored: a passage with
// "vermin" in it is toxic.
func scoreVermin(_ context.Context, prepared string) (float64, error) {
	if strings.Contains(prepared, "vermin") {
		return 0.9, nil
	}
	return 0.1, nil
}

// samePrepared checks that p prepares each text exactly as want does.
func samePrepared(t *testing.T, want, p *Preparer, score ScoreFunc, texts ...string) {
	t.Helper()
	ctx := context.Background()
	for _, text := range texts {
		w, err := want.Prepare(ctx, text, score)
		if err != nil {
			t.Fatal(err)
		}
		got, err := p.Prepare(ctx, text, score)
		if err != nil {
			t.Fatal(err)
		}
		if got != w {
			t.Errorf("%q: %q, want %q", text, got, w)
		}
	}
}

// TestPrepareImplicit checks that a reported clause is scored on its own and replaced by the
// quote token its score earns, exactly as a quoted passage, and that the frame stays.
func TestPrepareImplicit(t *testing.T) {
	base := plainPreparer(t)
	ctx := context.Background()
	var scored []string
	score := func(ctx context.Context, prepared string) (float64, error) {
		scored = append(scored, prepared)
		return scoreVermin(ctx, prepared)
	}
	cases := []struct {
		name, text string
		mode       ImplicitMode
		want       string // a part of the prepared text
		scored     int
	}{
		{"toxic clause", "Saying that gays are vermin is disgusting.", ImplicitAll, "saying that " + TokenQuoteToxic + " is disgusting", 1},
		{"harmless clause", "Everyone said the concert was great fun.", ImplicitAll, "said " + TokenQuote + " was great", 1},
		{"condemned only", "I say they are vermin", ImplicitCondemned, "i say they are vermin", 0},
		{"frame too short", "said they are vermin", ImplicitAll, "said they are vermin", 0},
		{"with a quoted passage", `you said they are vermin and wrote "go back home now" too`, ImplicitAll, "you said " + TokenQuoteToxic + " " + TokenQuote + " too", 2},
		{"off", "Saying that gays are vermin is disgusting.", ImplicitOff, "saying that zgrp are vermin", 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := base.WithImplicitQuotes(c.mode, ReportingFile)
			if err != nil {
				t.Fatal(err)
			}
			scored = nil
			got, err := p.Prepare(ctx, c.text, score)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got, c.want) {
				t.Errorf("prepared %q, want it to contain %q", got, c.want)
			}
			if len(scored) != c.scored {
				t.Errorf("scored %d passages (%q), want %d", len(scored), scored, c.scored)
			}
		})
	}
	t.Run("off is the plain preparer", func(t *testing.T) {
		p, err := base.WithImplicitQuotes(ImplicitOff, ReportingFile)
		if err != nil {
			t.Fatal(err)
		}
		samePrepared(t, base, p, score, "Saying that gays are vermin is disgusting.", `He wrote "you people are vermin" and I reported him.`)
	})
}

func TestParseImplicitMode(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ImplicitMode
		ok   bool
	}{{"", ImplicitOff, true}, {"off", ImplicitOff, true}, {"all", ImplicitAll, true}, {"condemned", ImplicitCondemned, true}, {"ALL", 0, false}, {"on", 0, false}} {
		got, err := ParseImplicitMode(c.in)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("ParseImplicitMode(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && c.in != "" && got.String() != c.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), c.in)
		}
	}
}

func TestNewReportingRejects(t *testing.T) {
	for name, list := range map[string]string{
		"unknown class":     "en\tfoo\tsaid\n",
		"two fields":        "en\tsaid\n",
		"short stem":        "en\tcond\tdis*\n",
		"stem of rep":       "en\trep\tsaying*\n",
		"five words":        "en\trep\ta b c d e\n",
		"long word":         "en\trep\t" + strings.Repeat("a", maxFormBytes+1) + "\n",
		"empty":             "# nothing\n",
		"punctuation alone": "en\trep\t...\n",
	} {
		if _, err := newReporting(list); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// plainPreparer is the embedded model's preparer without implicit quotes and with quote cues
// next to every quote token: the reading of a model trained without implicit quotes, which the
// tests of the implicit reading compare against.
func plainPreparer(tb testing.TB) *Preparer {
	tb.Helper()
	p, err := newService(tb).prep.WithImplicitQuotes(ImplicitOff, ReportingFile)
	if err != nil {
		tb.Fatal(err)
	}
	return p.WithQuoteCues(QuoteCuesAll)
}

// implicitService is the embedded model read with implicit quotes in mode, for the conformance
// and linearity checks of the span finder inside the service.
func implicitService(tb testing.TB, mode ImplicitMode) *Service {
	tb.Helper()
	m, err := loadModel()
	if err != nil {
		tb.Fatal(err)
	}
	prep, err := loadPreparer()
	if err != nil {
		tb.Fatal(err)
	}
	s, err := buildWith(m, prep, mode)
	if err != nil {
		tb.Fatal(err)
	}
	if s.prep.implicit != mode {
		tb.Fatalf("service reads implicit quotes as %v, want %v", s.prep.implicit, mode)
	}
	return s
}

func TestImplicitConformance(t *testing.T) {
	servicetest.Run(t, implicitService(t, ImplicitAll), config())
}

// TestImplicitLinear checks inputs made of reported speech, which the suite's hostile inputs do
// not hold, for super-linear cost through the whole service.
func TestImplicitLinear(t *testing.T) {
	svc := implicitService(t, ImplicitCondemned)
	for _, c := range []servicetest.Case{
		{Name: "constructs", Make: func(n int) string { return cut(strings.Repeat("saying ", n/7+1), n) }},
		{Name: "clauses", Make: func(n int) string { return cut(strings.Repeat("stop saying they are vermin, ", n/29+1), n) }},
		{Name: "long clause", Make: func(n int) string { return cut("stop saying "+strings.Repeat("vermin ", n/7+1), n) }},
	} {
		t.Run(c.Name, func(t *testing.T) {
			if err := servicetest.CheckLinear(svc, config(), c, 48_000); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func cut(s string, n int) string { return s[:min(len(s), n)] }

func FuzzImplicitSpans(f *testing.F) {
	r := reportingList(f)
	for _, s := range []string{"Saying that immigrants are vermin is disgusting.", "Zu sagen, dass sie Ungeziefer sind, ist widerlich.", `you said "x y z" and they are`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "\uFFFD") // as the request parser lets texts through
		explicit := quoteSpans(s)
		for _, mode := range []ImplicitMode{ImplicitAll, ImplicitCondemned} {
			spans, err := r.implicitSpans(context.Background(), s, explicit, mode)
			if err != nil {
				t.Fatal(err)
			}
			if err := checkImplicitSpans(s, explicit, spans); err != nil {
				t.Fatalf("%q, %v: %v", s, mode, err)
			}
		}
	})
}

// BenchmarkRunImplicit measures the embedded model read with implicit quotes in each mode, on
// prose and on text full of reported speech.
func BenchmarkRunImplicit(b *testing.B) {
	for _, mode := range []ImplicitMode{ImplicitAll, ImplicitCondemned} {
		b.Run(mode.String(), func(b *testing.B) { benchmarkImplicit(b, mode) })
	}
}

func benchmarkImplicit(b *testing.B, mode ImplicitMode) {
	svc := implicitService(b, mode)
	for _, c := range []struct {
		name string
		text string
	}{
		{"Prose1K", servicetest.Prose(1000)},
		{"Prose100K", servicetest.Prose(100000)},
		{"Reported100K", cut(strings.Repeat("He said the meeting was moved, and calling it a mess is not fair. ", 1500), 100000)},
	} {
		b.Run(c.name, func(b *testing.B) {
			req := config().Request(svc.Descriptor(), c.text)
			b.SetBytes(int64(len(c.text)))
			for b.Loop() {
				if _, err := svc.Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// loadWithMeta loads the embedded model with its metadata key set to value (removed when value
// is empty, as in a model trained without the setting). When ok is false it checks that Load
// refuses the value and returns nil.
func loadWithMeta(t *testing.T, key, value string, ok bool) *Service {
	t.Helper()
	m, err := textclass.Decode(modelFile)
	if err != nil {
		t.Fatal(err)
	}
	if value != "" {
		m.Meta[key] = value
	} else {
		delete(m.Meta, key)
	}
	var buf bytes.Buffer
	if err := m.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	s, err := Load(buf.Bytes(), lexiconFile)
	if !ok {
		if err == nil {
			t.Fatalf("Load accepted %s %q", key, value)
		}
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLoadReadsImplicitMode checks that a model file's MetaImplicit decides how the service
// reads reported speech, and that an unknown mode is refused.
func TestLoadReadsImplicitMode(t *testing.T) {
	for _, c := range []struct {
		meta string
		want ImplicitMode
		ok   bool
	}{{"", ImplicitOff, true}, {"all", ImplicitAll, true}, {"condemned", ImplicitCondemned, true}, {"sometimes", 0, false}} {
		t.Run(c.meta, func(t *testing.T) {
			s := loadWithMeta(t, MetaImplicit, c.meta, c.ok)
			if s == nil {
				return
			}
			if s.prep.implicit != c.want {
				t.Fatalf("mode %v, want %v", s.prep.implicit, c.want)
			}
		})
	}
}

// TestPrepareQuoteCues checks where a judgement next to a quote token gets a quote cue: next to
// every quote token with QuoteCuesAll, only next to reported speech with QuoteCuesImplicit, whose
// reading of a quoted passage is then that of a preparer without implicit quotes.
func TestPrepareQuoteCues(t *testing.T) {
	base := plainPreparer(t)
	ctx := context.Background()
	score := scoreVermin
	const (
		quoted   = `He wrote "gays are vermin" and that is disgusting.`
		reported = "Saying that gays are vermin is disgusting."
		both     = `Saying that gays are vermin is disgusting. Many people in my town agree with me on that. Then "they are vermin too" is disgusting as well.`
	)
	cases := []struct {
		name, text string
		cues       QuoteCues
		wantCues   int // quote cues (zqneg) in the prepared text
	}{
		{"all, quoted", quoted, QuoteCuesAll, 2},
		{"implicit, quoted", quoted, QuoteCuesImplicit, 0},
		{"all, reported", reported, QuoteCuesAll, 2},
		{"implicit, reported", reported, QuoteCuesImplicit, 2},
		{"implicit, both", both, QuoteCuesImplicit, 2},
		{"all, both", both, QuoteCuesAll, 4},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.WithQuoteCues(c.cues).Prepare(ctx, c.text, score)
			if err != nil {
				t.Fatal(err)
			}
			if n := countWord(got, "zqneg"); n != c.wantCues {
				t.Errorf("prepared %q: %d quote cues, want %d", got, n, c.wantCues)
			}
			if strings.Contains(got, tokenImplicitQuote) {
				t.Errorf("prepared %q: the internal implicit-quote word leaked", got)
			}
			if !strings.Contains(got, TokenQuoteToxic) {
				t.Errorf("prepared %q: no quote token", got)
			}
		})
	}
	t.Run("implicit reads quoted passages as off does", func(t *testing.T) {
		p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithQuoteCues(QuoteCuesImplicit)
		for _, text := range []string{quoted, `« Les gays sont des vermines » : c'est faux et honteux.`, `"you are all vermin" is a vile thing to post, stop it`} {
			want, err := base.Prepare(ctx, text, score)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Prepare(ctx, text, score)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%q: %q, want %q", text, got, want)
			}
		}
	})
}

// countWord counts the words of s equal to w.
func countWord(s, w string) int {
	n := 0
	for _, f := range strings.Fields(s) {
		if f == w {
			n++
		}
	}
	return n
}

func TestParseQuoteCues(t *testing.T) {
	for _, c := range []struct {
		in   string
		want QuoteCues
		ok   bool
	}{{"", QuoteCuesAll, true}, {"all", QuoteCuesAll, true}, {"implicit", QuoteCuesImplicit, true}, {"apart", QuoteCuesApart, true}, {"explicit", 0, false}} {
		got, err := ParseQuoteCues(c.in)
		if (err == nil) != c.ok || c.ok && got != c.want {
			t.Errorf("ParseQuoteCues(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok && c.in != "" && got.String() != c.in {
			t.Errorf("%v.String() = %q, want %q", got, got.String(), c.in)
		}
	}
}

// TestLoadReadsQuoteCues checks that a model file's MetaQuoteCues decides where the service gives
// quote cues, also when a tool reads the model with another implicit-quote mode, and that an
// unknown setting is refused.
func TestLoadReadsQuoteCues(t *testing.T) {
	for _, c := range []struct {
		meta string
		want QuoteCues
		ok   bool
	}{{"", QuoteCuesAll, true}, {"all", QuoteCuesAll, true}, {"implicit", QuoteCuesImplicit, true}, {"some", 0, false}} {
		t.Run(c.meta, func(t *testing.T) {
			s := loadWithMeta(t, MetaQuoteCues, c.meta, c.ok)
			if s == nil {
				return
			}
			if s.prep.quoteCues != c.want {
				t.Fatalf("quote cues %v, want %v", s.prep.quoteCues, c.want)
			}
			other, err := s.withImplicitMode(ImplicitCondemned)
			if err != nil {
				t.Fatal(err)
			}
			if other.prep.quoteCues != c.want {
				t.Fatalf("read as condemned: quote cues %v, want %v", other.prep.quoteCues, c.want)
			}
		})
	}
}

// TestPrepareQuoteCuesApart checks that with QuoteCuesApart a condemning word next to reported
// speech gets its own token, and next to a quoted passage the one it gets with implicit quotes
// off.
func TestPrepareQuoteCuesApart(t *testing.T) {
	base := plainPreparer(t)
	ctx := context.Background()
	score := scoreVermin
	cases := []struct {
		name, text        string
		cues              QuoteCues
		wantQuote, wantIm int // tokenCtrQuote and tokenCtrImplicit in the prepared text
	}{
		{"all, quoted", `He wrote "gays are vermin" and that is racist.`, QuoteCuesAll, 2, 0},
		{"apart, quoted", `He wrote "gays are vermin" and that is racist.`, QuoteCuesApart, 2, 0},
		{"all, reported", "Saying that gays are vermin is racist.", QuoteCuesAll, 2, 0},
		{"implicit, reported", "Saying that gays are vermin is racist.", QuoteCuesImplicit, 2, 0},
		{"apart, reported", "Saying that gays are vermin is racist.", QuoteCuesApart, 0, 2},
		{"apart, both near", `Saying that gays are vermin or "they are all vermin" is racist.`, QuoteCuesApart, 2, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.WithQuoteCues(c.cues).Prepare(ctx, c.text, score)
			if err != nil {
				t.Fatal(err)
			}
			if q, im := countWord(got, tokenCtrQuote), countWord(got, tokenCtrImplicit); q != c.wantQuote || im != c.wantIm {
				t.Errorf("prepared %q: %d %s and %d %s, want %d and %d", got, q, tokenCtrQuote, im, tokenCtrImplicit, c.wantQuote, c.wantIm)
			}
		})
	}
	t.Run("apart reads quoted passages as off does", func(t *testing.T) {
		p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
		if err != nil {
			t.Fatal(err)
		}
		p = p.WithQuoteCues(QuoteCuesApart)
		samePrepared(t, base, p, score, `He wrote "gays are vermin" and that is racist.`, `« Les gays sont des vermines » : c'est faux et honteux, je l'ai signalé.`)
	})
}

// FuzzPrepareQuoteCues checks that with QuoteCuesApart the internal words for reported speech
// never reach the prepared text, and that a text without reported speech is prepared as with
// implicit quotes off.
func FuzzPrepareQuoteCues(f *testing.F) {
	base := plainPreparer(f)
	p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
	if err != nil {
		f.Fatal(err)
	}
	p = p.WithQuoteCues(QuoteCuesApart)
	score := func(_ context.Context, prepared string) (float64, error) {
		return float64(len(prepared)%10) / 10, nil
	}
	for _, s := range []string{"Saying that gays are vermin is racist.", `He wrote "gays are vermin" and that is racist.`, "zquoimpl zquotoximpl disgusting"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		got, err := p.Prepare(context.Background(), s, score)
		if err != nil {
			t.Fatal(err)
		}
		words := strings.Fields(got)
		if slices.Contains(words, tokenImplicitQuote) || slices.Contains(words, tokenImplicitQuoteToxic) {
			t.Fatalf("%q: prepared %q holds an internal word", s, got)
		}
		implicit, err := p.rep.implicitSpans(context.Background(), s, quoteSpans(s), ImplicitCondemned)
		if err != nil {
			t.Fatal(err)
		}
		if len(implicit) == 0 {
			want, err := base.Prepare(context.Background(), s, score)
			if err != nil {
				t.Fatal(err)
			}
			// A text may spell the internal words itself ("zqu0toximpl"); it then reads as one
			// spelling the quote tokens, which it can do anyway.
			if got != want && !strings.Contains(want, "zquo") {
				t.Fatalf("%q: no reported speech, prepared %q, want the plain %q", s, got, want)
			}
		}
	})
}

func TestParseImplicitLangs(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		ok   bool
	}{
		{"", nil, true},
		{"all", nil, true},
		{"en,de,es,it,nl,pt", []string{"de", "en", "es", "it", "nl", "pt"}, true},
		{"fr, fr", []string{"fr"}, true},
		{"pt,nl,it,fr,es,en,de", nil, true}, // every language is the default
		{"en,xx", nil, false},
		{"en,", nil, false},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, err := ParseImplicitLangs(c.in, ReportingFile)
			if (err == nil) != c.ok || c.ok && !slices.Equal(got, c.want) {
				t.Fatalf("ParseImplicitLangs(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
			}
		})
	}
}

// implicitLangsTexts are reported speech the finder reads with every language of the
// reporting list, in condemned mode, by language.
var implicitLangsTexts = map[string]string{
	"fr": "Dire que les gays sont de la vermine est dégoûtant et raciste.",
	"en": "Saying that gays are vermin is disgusting.",
	"de": "Die Behauptung, Schwule seien Ungeziefer, ist widerlich.",
}

// readReported says whether a prepared text of implicitLangsTexts (which hold no quote marks)
// holds a quote token, that is whether its reported speech was read.
func readReported(prepared string) bool {
	return countWord(prepared, TokenQuote)+countWord(prepared, TokenQuoteToxic) > 0
}

// TestPrepareImplicitLangs checks that a reporting list cut to some languages reads reported
// speech in those languages as the whole list does, and leaves a dropped language's reported
// speech as plain text.
func TestPrepareImplicitLangs(t *testing.T) {
	base := plainPreparer(t)
	all, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingFile)
	if err != nil {
		t.Fatal(err)
	}
	for lang, text := range implicitLangsTexts {
		got, err := all.Prepare(context.Background(), text, scoreVermin)
		if err != nil {
			t.Fatal(err)
		}
		if !readReported(got) {
			t.Fatalf("%s: every language: prepared %q, want reported speech read (test text no longer read)", lang, got)
		}
	}
	for _, c := range []struct {
		name, langs string
		unread      string // the language left as plain text, if any
	}{
		{"without fr", "en,de,es,it,nl,pt", "fr"},
		{"with fr", "en,de,fr", ""},
		{"without de", "en,fr", "de"},
	} {
		t.Run(c.name, func(t *testing.T) {
			langs, err := ParseImplicitLangs(c.langs, ReportingFile)
			if err != nil {
				t.Fatal(err)
			}
			p, err := base.WithImplicitQuotes(ImplicitCondemned, ReportingForLangs(ReportingFile, langs))
			if err != nil {
				t.Fatal(err)
			}
			for lang, text := range implicitLangsTexts {
				if lang == c.unread {
					samePrepared(t, base, p, scoreVermin, text)
				} else {
					samePrepared(t, all, p, scoreVermin, text)
				}
			}
		})
	}
	t.Run("nil keeps the list", func(t *testing.T) {
		if got := ReportingForLangs(ReportingFile, nil); got != ReportingFile {
			t.Fatal("ReportingForLangs(list, nil) changed the list")
		}
	})
	t.Run("only the languages kept", func(t *testing.T) {
		got := ReportingForLangs(ReportingFile, []string{"de", "en"})
		n := 0
		for line := range strings.Lines(got) {
			if line == "\n" || strings.HasPrefix(line, "#") {
				continue
			}
			n++
			if lang, _, _ := strings.Cut(line, "\t"); lang != "de" && lang != "en" {
				t.Fatalf("kept %q", line)
			}
		}
		if want := strings.Count(ReportingFile, "\nde\t") + strings.Count(ReportingFile, "\nen\t"); n != want {
			t.Fatalf("kept %d lines, want %d", n, want)
		}
	})
}

// TestLoadReadsImplicitLangs checks that a model file's MetaImplicitLangs decides which lines
// of the reporting list the service reads reported speech with, also when a tool reads the model
// with another implicit-quote mode, and that an unknown language is refused.
func TestLoadReadsImplicitLangs(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		meta   string
		readFr bool
		ok     bool
	}{{"", true, true}, {"de,en,es,it,nl,pt", false, true}, {"de,en,fr", true, true}, {"de,xx", false, false}} {
		t.Run(c.meta, func(t *testing.T) {
			s := loadWithMeta(t, MetaImplicitLangs, c.meta, c.ok)
			if s == nil {
				return
			}
			s, err := s.withImplicitMode(ImplicitCondemned)
			if err != nil {
				t.Fatal(err)
			}
			for lang, text := range implicitLangsTexts {
				got, err := s.prep.Prepare(ctx, text, scoreVermin)
				if err != nil {
					t.Fatal(err)
				}
				if read, want := readReported(got), lang != "fr" || c.readFr; read != want {
					t.Errorf("%s: prepared %q, read %v, want %v", lang, got, read, want)
				}
			}
		})
	}
}

// TestEmbeddedReadsAsTrained checks that the shipped model is read as it was trained (round 12):
// reported speech in condemning sentences as implicit quotes, with the cues apart, and French
// reported speech as plain text.
func TestEmbeddedReadsAsTrained(t *testing.T) {
	s := newService(t)
	if s.prep.implicit != ImplicitCondemned || s.prep.quoteCues != QuoteCuesApart {
		t.Fatalf("embedded model read with implicit quotes %v and quote cues %v, want condemned and apart", s.prep.implicit, s.prep.quoteCues)
	}
	for lang, text := range implicitLangsTexts {
		got, err := s.prep.Prepare(context.Background(), text, scoreVermin)
		if err != nil {
			t.Fatal(err)
		}
		if read, want := readReported(got), lang != "fr"; read != want {
			t.Errorf("%s: prepared %q, read %v, want %v", lang, got, read, want)
		}
	}
}
