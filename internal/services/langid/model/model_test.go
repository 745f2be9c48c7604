package model

import (
	"bytes"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/modelfile"
)

func testEntries() []Entry {
	return []Entry{
		{"a", []Posting{{0, 10}, {1, 20}}},
		{" ab", []Posting{{1, 3}}},
		{"ab ", []Posting{{0, 100}}},
		{"щ", []Posting{{2, 7}}},
		{" ж ", []Posting{{2, 1}}},
	}
}

func encode(t *testing.T, entries []Entry) []byte {
	t.Helper()
	return encodeFor(t, entries)
}

// encodeFor encodes entries into a model file of three languages for a test or fuzz target.
func encodeFor(t testing.TB, entries []Entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	langs := []string{"en", "de", "ru"}
	scripts := []uint32{1 << Latin, 1 << Latin, 1 << Cyrillic}
	p := Params{Step: 0.1, Backoff: -1, Unseen: -12, MinOrder: 1, Calibration: [8]float32{1.5}}
	if err := Encode(&buf, langs, scripts, []float32{0, -0.5, 0}, p, entries); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

func TestEncodeLoadLookup(t *testing.T) {
	m, err := Load(encode(t, testEntries()))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if !slices.Equal(m.Langs, []string{"en", "de", "ru"}) || m.Scripts[2] != 1<<Cyrillic || m.Prior[1] != -0.5 || m.Params.Calibration[0] != 1.5 {
		t.Fatalf("header: langs %v scripts %v params %+v", m.Langs, m.Scripts, m.Params)
	}
	if m.Len() != len(testEntries()) {
		t.Fatalf("Len = %d, want %d", m.Len(), len(testEntries()))
	}
	for _, e := range testEntries() {
		t.Run(e.Gram, func(t *testing.T) {
			got := m.Lookup(HashString(e.Gram))
			var want []byte
			for _, p := range e.Postings {
				want = append(want, p.Lang, p.Score)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("Lookup(%q) = %v, want %v", e.Gram, got, want)
			}
		})
	}
	for _, g := range []string{"b", "ab", " a", "", "щщ"} {
		if got := m.Lookup(HashString(g)); got != nil {
			t.Errorf("Lookup(%q) = %v, want nothing", g, got)
		}
	}
	if Hash([]byte(" ab")) != HashString(" ab") {
		t.Error("Hash and HashString disagree")
	}
}

func TestEncodeRejects(t *testing.T) {
	for _, tc := range []struct {
		name    string
		entries []Entry
	}{
		{"Duplicate", []Entry{{"a", []Posting{{0, 1}}}, {"a", []Posting{{1, 1}}}}},
		{"NoPostings", []Entry{{"a", nil}}},
		{"EmptyGram", []Entry{{"", []Posting{{0, 1}}}}},
		{"UnknownLanguage", []Entry{{"a", []Posting{{3, 1}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Encode(&buf, []string{"en", "de", "ru"}, make([]uint32, 3), make([]float32, 3), Params{}, tc.entries)
			if err == nil {
				t.Fatal("Encode accepted it")
			}
		})
	}
}

func TestLoadRejectsDamagedFiles(t *testing.T) {
	good := encode(t, testEntries())
	for _, tc := range []struct {
		name string
		file []byte
	}{
		{"Empty", nil},
		{"BadMagic", append([]byte("XXXX"), good[4:]...)},
		{"OldFormat", append([]byte("SLID\x02"), good...)},
		{"OtherModel", func() []byte {
			f, err := modelfile.Decode(good)
			if err != nil {
				t.Fatal(err)
			}
			b, err := modelfile.Encode("sluice-other", f.Meta, f.Sections...)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}()},
		{"Truncated", good[:len(good)-3]},
		{"TrailingBytes", append(slices.Clone(good), 0)},
		{"TruncatedHeader", good[:20]},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Load(tc.file); err == nil {
				t.Fatal("Load accepted it")
			}
		})
	}
	// Every prefix must fail cleanly, never panic.
	for i := range len(good) {
		if _, err := Load(good[:i]); err == nil {
			t.Fatalf("Load accepted the first %d of %d bytes", i, len(good))
		}
	}
}

func TestScriptOf(t *testing.T) {
	for _, tc := range []struct {
		r    rune
		want Script
	}{
		{'a', Latin}, {'Z', Latin}, {'ß', Latin}, {'ő', Latin}, {'ｗ', Latin},
		{'я', Cyrillic}, {'ї', Cyrillic}, {'λ', Greek}, {'ա', Armenian}, {'ქ', Georgian},
		{'ש', Hebrew}, {'ع', Arabic}, {'ک', Arabic}, {'क', Devanagari}, {'ক', Bengali},
		{'ਕ', Gurmukhi}, {'ક', Gujarati}, {'க', Tamil}, {'క', Telugu}, {'ก', Thai},
		{'한', Hangul}, {'あ', Kana}, {'カ', Kana}, {'中', Han}, {'𠀀', Han},
		{'1', NoScript}, {' ', NoScript}, {'!', NoScript}, {'😀', NoScript}, {'\u200b', NoScript},
		{'\u093e', NoScript}, // a Devanagari vowel sign is a mark, not a letter
		{'・', NoScript}, {'ᚠ', OtherScript},
	} {
		if got := ScriptOf(tc.r); got != tc.want {
			t.Errorf("ScriptOf(%q) = %v, want %v", tc.r, got, tc.want)
		}
	}
}

func TestForWords(t *testing.T) {
	long := strings.Repeat("xy", MaxWordRunes/2+5)
	for _, tc := range []struct {
		name, text string
		script     Script
		want       []string
	}{
		{"Latin", "Hello, World! l'été", Latin, []string{"hello", "world", "l", "été"}},
		{"OtherScriptSkipped", "Привет hello мир", Cyrillic, []string{"привет", "мир"}},
		{"DigitsSplit", "abc123def", Latin, []string{"abc", "def"}},
		{"LongWordCut", long + " ok", Latin, []string{long[:MaxWordRunes], "ok"}},
		{"HanSingle", "中文ok字", Han, []string{"中", "文", "字"}},
		{"HanWithKana", "日本語です", Han, []string{"日", "本", "語", "で", "す"}},
		{"Empty", "", Latin, nil},
		// Three or more of one letter read as one; two stay two ("gooood" reads "god" and
		// "Schifffahrt" "schifahrt", the cost).
		{"Stretched", "Holaaaa HIIII sooo cool gooood Schifffahrt", Latin, []string{"hola", "hi", "so", "cool", "god", "schifahrt"}},
		{"StretchedLong", strings.Repeat("a", 10*MaxWordRunes) + "h", Latin, []string{"ah"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			forWords(tc.text, tc.script, func(w []rune) { got = append(got, string(w)) })
			if !slices.Equal(got, tc.want) {
				t.Fatalf("words = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestTrimPartialWords(t *testing.T) {
	text := "alpha beta gamma delta"
	for _, tc := range []struct {
		name       string
		start, end int
		want       string
	}{
		{"Whole", 0, len(text), text},
		{"CutBoth", 2, 13, " beta "},
		{"OnBoundaries", 5, 11, " beta "},
		{"InsideOneWord", 7, 9, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := trimPartialWords(text, tc.start, tc.end); got != tc.want {
				t.Fatalf("trimPartialWords(%d, %d) = %q, want %q", tc.start, tc.end, got, tc.want)
			}
		})
	}
}

func TestDetectOnTinyModel(t *testing.T) {
	m, err := Load(encode(t, testEntries()))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDetector(m)
	if err != nil {
		t.Fatal(err)
	}
	codes := d.Codes()
	code := func(r Result) string {
		if len(r.Ranked) == 0 {
			return "und"
		}
		return codes[r.Ranked[0].Lang]
	}
	idx := func(c string) int { return slices.Index(codes, c) }
	var enDe Set
	enDe.Add(idx("en"))
	enDe.Add(idx("de"))
	for _, tc := range []struct {
		name string
		text string
		cand Set
		want string
	}{
		{"UnigramDecides", "a a a", d.All(), "de"},
		{"BoundariesDecide", "ab", d.All(), "en"},
		{"CyrillicScript", "щ ж", d.All(), "ru"},
		{"GreekByScript", "καλημέρα", d.All(), "el"},
		{"KanaByScript", "ありがとう", d.All(), "ja"},
		{"NoLetters", "123 !!! 😀", d.All(), "und"},
		{"NoCandidateScript", "щ ж", enDe, "und"},
		{"MinorityScriptOfCandidates", "щщщщ a", enDe, "de"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := d.Detect(context.Background(), tc.text, tc.cand)
			if err != nil {
				t.Fatal(err)
			}
			if got := code(r); got != tc.want {
				t.Fatalf("Detect(%q) = %s (%+v), want %s", tc.text, got, r, tc.want)
			}
			sum := 0.0
			for i, s := range r.Ranked {
				sum += s.Confidence
				if !tc.cand.Has(s.Lang) || i > 0 && s.Confidence > r.Ranked[i-1].Confidence {
					t.Fatalf("ranking %+v", r.Ranked)
				}
			}
			if len(r.Ranked) > 0 && (sum < 0.999 || sum > 1.001) {
				t.Fatalf("confidences sum to %v", sum)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.Detect(ctx, "a a a", d.All()); !errors.Is(err, context.Canceled) {
		t.Fatalf("Detect with a cancelled context: %v", err)
	}
}

// FuzzLoad feeds Load damaged and arbitrary files: it must refuse them or return a model whose
// lookups stay inside its postings, never panic or loop.
func FuzzLoad(f *testing.F) {
	good := encodeFor(f, testEntries())
	f.Add(good)
	f.Add(good[:len(good)/2])
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 0xff
	f.Add(flipped)
	f.Fuzz(func(t *testing.T, file []byte) {
		m, err := Load(file)
		if err != nil {
			return
		}
		for _, g := range []string{"a", " ab", "ab ", "щ", " ж ", "zz", ""} {
			p := m.Lookup(HashString(g))
			if len(p)%2 != 0 {
				t.Fatalf("Lookup(%q) = %d bytes, want pairs", g, len(p))
			}
			for i := 0; i < len(p); i += 2 {
				if int(p[i]) >= len(m.Langs) {
					t.Fatalf("Lookup(%q) has language %d of %d", g, p[i], len(m.Langs))
				}
			}
		}
	})
}

// TestOneWordMessage: the one-word key of a word counts when the word is the whole message, and
// only then.
func TestOneWordMessage(t *testing.T) {
	entries := append(testEntries(), Entry{string(rune(OneWordMark)) + " aa ", []Posting{{0, 50}}})
	slices.SortFunc(entries, func(a, b Entry) int { return strings.Compare(a.Gram, b.Gram) })
	m, err := Load(encode(t, entries))
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDetector(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ text, want string }{
		{"aa", "en"}, {" Aa! ", "en"}, {"aa aa", "de"}, {"aaa", "de"}, {"aa щ", "en"},
	} {
		r, err := d.Detect(context.Background(), tc.text, d.All())
		if err != nil {
			t.Fatal(err)
		}
		if got := d.Codes()[r.Ranked[0].Lang]; got != tc.want {
			t.Errorf("Detect(%q) = %s (%+v), want %s", tc.text, got, r.Ranked, tc.want)
		}
	}
}

// TestDestretch: the trainer's reading of a word is the detector's.
func TestDestretch(t *testing.T) {
	for _, w := range []string{"holaaaa", "hiiii", "sooo", "cool", "gooood", "schifffahrt", "aaaaaaah", "aabbbcc", "", "a"} {
		var got []string
		forWords(w, Latin, func(r []rune) { got = append(got, string(r)) })
		want := strings.Join(got, "")
		if d := Destretch(w); d != want {
			t.Errorf("Destretch(%q) = %q, forWords reads %q", w, d, want)
		}
	}
}
