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
func clauses(tb testing.TB, r *reporting, s string) []string {
	tb.Helper()
	spans, err := r.implicitSpans(context.Background(), s, quoteSpans(s))
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
	long := "you said " + strings.Repeat("they are ", 20) + "bad. That is racist."
	cases := []struct {
		name, text string
		want       []string // the clauses read as implicit quotes
	}{
		{"en/gerund subject, frame verb ends it", "Saying that immigrants are vermin is disgusting.",
			[]string{"immigrants are vermin"}},
		{"en/endorsing, no condemning word", "I'm saying immigrants are vermin",
			[]string{}},
		{"en/calling, two-word clause", "Calling women dumb is not ok.",
			[]string{"women dumb"}},
		{"en/conjunction ends it", "you called me a pig because i'm fat, and that is rude",
			[]string{}},
		{"en/stop before the construct", "stop calling trans people freaks",
			[]string{"trans people freaks"}},
		{"en/construct of three words", "the idea that gay people are sick is an old lie",
			[]string{"gay people are sick"}},
		{"en/condemning word only inside the clause", "I always say they are disgusting",
			[]string{}},
		{"en/condemning word in the sentence before", "That is racist. You said they are thieves",
			[]string{}},
		{"en/condemning word in the next sentence", "You said they are thieves. That is racist.",
			[]string{"they are thieves"}},
		{"en/condemning word two sentences on", "You said they are thieves. Nice weather. That is racist.",
			[]string{}},
		{"en/one word is no clause", "He said so.", []string{}},
		{"en/ordinary report", "He said nothing about it.", []string{}},
		{"en/no construct", "The meeting is at five, see you there.", []string{}},
		{"en/construct at the end", "that is exactly what she said", []string{}},
		{"en/construct before a comma", "you said, and I quote, nothing", []string{}},
		{"en/quoted passage is not a clause", `you said "they are all thieves" and that is racist`,
			[]string{}},
		{"en/clause stops at a quote", `calling them rats "as a joke" is not funny, it is racist`,
			[]string{"them rats"}},
		{"en/bounded length", long, []string{strings.Repeat("they are ", 12)[:len(strings.Repeat("they are ", 12))-1]}},
		{"de/comma and dass", "Zu sagen, dass Flüchtlinge Ungeziefer sind, ist widerlich.",
			[]string{"Flüchtlinge Ungeziefer sind"}},
		{"de/comma ends it, condemnation in the next sentence", "Du nennst sie Parasiten, weil sie arm sind. Schäm dich.",
			[]string{"sie Parasiten"}},
		{"de/weil ends it", "Du nennst sie dumme Parasiten weil sie arm sind, das ist Hetze.",
			[]string{"sie dumme Parasiten"}},
		{"de/verb-final construct takes the words before it", "Wer Frauen dumme Hühner nennt, sollte sich schämen.",
			[]string{"Wer Frauen dumme Hühner"}},
		{"de/verb-final with zu, frame verb after it", "Flüchtlinge als Ratten zu bezeichnen ist entmenschlichend.",
			[]string{"Flüchtlinge als Ratten"}},
		{"de/verb-final starts after dass", "Dass du Frauen als dumm bezeichnest, ist sexistisch.",
			[]string{"du Frauen als dumm"}},
		{"de/verb-final passive", "Ich habe es satt, dass Migranten als Kakerlaken beschimpft werden.",
			[]string{"Migranten als Kakerlaken"}},
		{"de/verb second: the clause follows", "Gestern bezeichnete er Flüchtlinge als Ratten. Widerlich.",
			[]string{"er Flüchtlinge als Ratten"}},
		{"de/one word before a verb-final construct", "Er bezeichnet Flüchtlinge als Ratten, das ist Hetze.",
			[]string{"Flüchtlinge als Ratten"}},
		{"de/two words before a verb-final construct are its subject", "Alles, was du sagst, ist widerlich.",
			[]string{}},
		{"de/repc takes a clause after a comma", "Du hast geschrieben, Schwarze seien Tiere. Das ist widerlich.",
			[]string{"Schwarze seien Tiere"}},
		{"de/repc takes a clause after a colon", "Die Behauptung: Schwule seien krank. Falsch.",
			[]string{"Schwule seien krank"}},
		{"de/repc takes no clause after a bracket", "Du hast geschrieben (Schwarze seien Tiere). Widerlich.",
			[]string{}},
		{"fr/elided que", "Dire qu'ils sont des rats est honteux.",
			[]string{"ils sont des rats"}},
		{"fr/traiter", "Arrête de traiter les femmes de connes.",
			[]string{"les femmes de connes"}},
		{"es/decir que", "Decir que los gitanos son ratas es repugnante.",
			[]string{"los gitanos son ratas"}},
		{"it/dire che", "Dire che gli immigrati sono parassiti è una vergogna.",
			[]string{}},
		{"it/dici che, ma ends it", "Dici che i rom sono ladri, ma è razzismo.",
			[]string{"i rom sono ladri"}},
		{"nl/zeggen dat", "Zeggen dat homo's ongedierte zijn is walgelijk.",
			[]string{"homo's ongedierte zijn"}},
		{"pt/dizer que", "Dizer que os ciganos são ladrões foi uma vergonha.",
			[]string{"os ciganos são ladrões"}},
		{"pt/accents folded", "CHAMAR as MULHERES de burras é NOJENTO",
			[]string{}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := clauses(t, r, c.text); !slices.Equal(got, c.want) {
				t.Errorf("%q, want %q", got, c.want)
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
			spans, err := r.implicitSpans(context.Background(), s, quoteSpans(s))
			if err != nil {
				t.Fatal(err)
			}
			if err := checkImplicitSpans(s, quoteSpans(s), spans); err != nil {
				t.Fatal(err)
			}
		})
	}
	t.Run("cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := r.implicitSpans(ctx, strings.Repeat("stop saying they are vermin ", 2000), nil)
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
		want       string // a part of the prepared text
		scored     int
	}{
		{"toxic clause", "Saying that gays are vermin is disgusting.", "saying that " + tokenQuoteToxic + " is disgusting", 1},
		{"harmless clause", "Everyone said the concert was great fun, which is a disgusting lie.", "said " + tokenQuote + " was great", 1},
		{"not condemned", "I say they are vermin", "i say they are vermin", 0},
		{"frame too short", "racist, said they are vermin", "said they are vermin", 0},
		{"with a quoted passage", `you said they are vermin and wrote "go back home now" too, stop it`, "you said " + tokenQuoteToxic + " " + tokenQuote + " too", 2},
	}
	p, err := base.WithImplicitQuotes(ReportingFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
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
	t.Run("plain preparer", func(t *testing.T) {
		got, err := base.Prepare(ctx, "Saying that gays are vermin is disgusting.", score)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(got, "saying that zgrp are vermin") {
			t.Errorf("prepared %q, want the reported clause as plain text", got)
		}
	})
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

// plainPreparer is the embedded model's preparer without implicit quotes: the plain reading
// the trainer adds to the implicit one, which the tests of the implicit reading compare against.
func plainPreparer(tb testing.TB) *Preparer {
	tb.Helper()
	p, err := NewPreparer(GroupsFile, PolarityFile, lexiconFile)
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestImplicitLinear checks inputs made of reported speech, which the suite's hostile inputs do
// not hold, for super-linear cost through the whole service.
func TestImplicitLinear(t *testing.T) {
	svc := newService(t)
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
		spans, err := r.implicitSpans(context.Background(), s, explicit)
		if err != nil {
			t.Fatal(err)
		}
		if err := checkImplicitSpans(s, explicit, spans); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// BenchmarkRunImplicit measures the embedded model on prose and on text full of reported
// speech.
func BenchmarkRunImplicit(b *testing.B) {
	svc := newService(b)
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

// TestLoadRefusesOtherReadings checks that a model file whose reading of quotes (MetaImplicit,
// MetaQuoteCues) is not the pinned one is refused, also when the key is missing.
func TestLoadRefusesOtherReadings(t *testing.T) {
	for _, c := range []struct {
		key, meta string
		ok        bool
	}{
		{MetaImplicit, ImplicitCondemned, true}, {MetaImplicit, "", false}, {MetaImplicit, "all", false}, {MetaImplicit, "off", false},
		{MetaQuoteCues, QuoteCuesApart, true}, {MetaQuoteCues, "", false}, {MetaQuoteCues, "all", false}, {MetaQuoteCues, "implicit", false},
	} {
		t.Run(c.key+"="+c.meta, func(t *testing.T) {
			if s := loadWithMeta(t, c.key, c.meta, c.ok); c.ok && s.prep.rep == nil {
				t.Fatal("loaded without implicit quotes")
			}
		})
	}
}

// TestPrepareQuoteCues checks where a judgement next to a quote token gets a quote cue: only
// next to reported speech, so that a quoted passage reads as with implicit quotes off.
func TestPrepareQuoteCues(t *testing.T) {
	base := plainPreparer(t)
	ctx := context.Background()
	score := scoreVermin
	const (
		quoted   = `He wrote "gays are vermin" and that is disgusting.`
		reported = "Saying that gays are vermin is disgusting."
		both     = `Saying that gays are vermin is disgusting. Many people in my town agree with me on that. Then "they are vermin too" is disgusting as well.`
	)
	p, err := base.WithImplicitQuotes(ReportingFile)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, text string
		wantCues   int // quote cues (zqneg) in the prepared text
	}{
		{"quoted", quoted, 0},
		{"reported", reported, 2},
		{"both", both, 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.Prepare(ctx, c.text, score)
			if err != nil {
				t.Fatal(err)
			}
			if n := countWord(got, "zqneg"); n != c.wantCues {
				t.Errorf("prepared %q: %d quote cues, want %d", got, n, c.wantCues)
			}
			if strings.Contains(got, tokenImplicitQuote) {
				t.Errorf("prepared %q: the internal implicit-quote word leaked", got)
			}
			if !strings.Contains(got, tokenQuoteToxic) {
				t.Errorf("prepared %q: no quote token", got)
			}
		})
	}
	t.Run("quoted passages read as without implicit quotes", func(t *testing.T) {
		samePrepared(t, base, p, score, quoted, `« Les gays sont des vermines » : c'est faux et honteux.`, `"you are all vermin" is a vile thing to post, stop it`)
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

// TestPrepareQuoteCuesApart checks that a condemning word next to reported speech gets its own
// token, and next to a quoted passage the one it gets with implicit quotes off.
func TestPrepareQuoteCuesApart(t *testing.T) {
	base := plainPreparer(t)
	ctx := context.Background()
	score := scoreVermin
	cases := []struct {
		name, text        string
		wantQuote, wantIm int // tokenCtrQuote and tokenCtrImplicit in the prepared text
	}{
		{"quoted", `He wrote "gays are vermin" and that is racist.`, 2, 0},
		{"reported", "Saying that gays are vermin is racist.", 0, 2},
		{"both near", `Saying that gays are vermin or "they are all vermin" is racist.`, 2, 2},
	}
	p, err := base.WithImplicitQuotes(ReportingFile)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := p.Prepare(ctx, c.text, score)
			if err != nil {
				t.Fatal(err)
			}
			if q, im := countWord(got, tokenCtrQuote), countWord(got, tokenCtrImplicit); q != c.wantQuote || im != c.wantIm {
				t.Errorf("prepared %q: %d %s and %d %s, want %d and %d", got, q, tokenCtrQuote, im, tokenCtrImplicit, c.wantQuote, c.wantIm)
			}
		})
	}
	t.Run("quoted passages read as without implicit quotes", func(t *testing.T) {
		samePrepared(t, base, p, score, `He wrote "gays are vermin" and that is racist.`, `« Les gays sont des vermines » : c'est faux et honteux, je l'ai signalé.`)
	})
}

// FuzzPrepareQuoteCues checks that the internal words for reported speech
// never reach the prepared text, and that a text without reported speech is prepared as with
// implicit quotes off.
func FuzzPrepareQuoteCues(f *testing.F) {
	base := plainPreparer(f)
	p, err := base.WithImplicitQuotes(ReportingFile)
	if err != nil {
		f.Fatal(err)
	}
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
		implicit, err := p.rep.implicitSpans(context.Background(), s, quoteSpans(s))
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
			got, err := parseImplicitLangs(c.in, ReportingFile)
			if (err == nil) != c.ok || c.ok && !slices.Equal(got, c.want) {
				t.Fatalf("parseImplicitLangs(%q) = %q, %v; want %q, ok %v", c.in, got, err, c.want, c.ok)
			}
		})
	}
}

// implicitLangsTexts are reported speech the finder reads with every language of the
// reporting list, by language.
var implicitLangsTexts = map[string]string{
	"fr": "Dire que les gays sont de la vermine est dégoûtant et raciste.",
	"en": "Saying that gays are vermin is disgusting.",
	"de": "Die Behauptung, Schwule seien Ungeziefer, ist widerlich.",
}

// readReported says whether a prepared text of implicitLangsTexts (which hold no quote marks)
// holds a quote token, that is whether its reported speech was read.
func readReported(prepared string) bool {
	return countWord(prepared, tokenQuote)+countWord(prepared, tokenQuoteToxic) > 0
}

// TestPrepareImplicitLangs checks that a reporting list cut to some languages reads reported
// speech in those languages as the whole list does, and leaves a dropped language's reported
// speech as plain text.
func TestPrepareImplicitLangs(t *testing.T) {
	base := plainPreparer(t)
	all, err := base.WithImplicitQuotes(ReportingFile)
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
			langs, err := parseImplicitLangs(c.langs, ReportingFile)
			if err != nil {
				t.Fatal(err)
			}
			p, err := base.WithImplicitQuotes(ReportingForLangs(ReportingFile, langs))
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
// of the reporting list the service reads reported speech with, and that an unknown language is
// refused.
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

// TestEmbeddedReadsAsTrained checks that the shipped model is read as it was trained: reported
// speech in condemning sentences as implicit quotes, and French reported speech as plain text.
func TestEmbeddedReadsAsTrained(t *testing.T) {
	s := newService(t)
	if s.prep.rep == nil {
		t.Fatal("embedded model read without implicit quotes")
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
