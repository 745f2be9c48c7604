package main

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func TestMisspell(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		edit       int
		ok         bool
		// check holds for every result the edit may give.
		check func(string) bool
	}{
		{"Join", "you dumb people.", editJoin, true, func(s string) bool {
			return s == "youdumb people." || s == "you dumbpeople."
		}},
		{"JoinNotAcrossPunctuation", "idiot, yes", editJoin, false, nil},
		{"JoinShortWordsOnly", "a b c", editJoin, false, nil},
		{"SwapKeepsEnds", "idiots!", editSwap, true, func(s string) bool {
			return s[0] == 'i' && strings.HasSuffix(s, "s!") && s != "idiots!" && sameLetters(s, "idiots!")
		}},
		{"SwapNeedsTwoDifferentInnerLetters", "eeee", editSwap, false, nil},
		{"DropKeepsEnds", "«crétins»", editDrop, true, func(s string) bool {
			return strings.HasPrefix(s, "«c") && strings.HasSuffix(s, "s»") && utf8.RuneCountInString(s) == utf8.RuneCountInString("«crétins»")-1
		}},
		{"LeavesLinksAndNumbers", "http://x.org 12345 @someone", editDrop, false, nil},
		{"ShortWords", "you are bad", editDrop, false, nil},
		{"InvalidUTF8", "ab\xffcdef", editSwap, false, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for seed := range uint64(20) {
				got, ok := misspell(tc.text, tc.edit, rand.New(rand.NewPCG(seed, 1)))
				if ok != tc.ok {
					t.Fatalf("misspell(%q, %d) ok = %v, want %v", tc.text, tc.edit, ok, tc.ok)
				}
				if ok && !tc.check(got) {
					t.Fatalf("misspell(%q, %d) = %q", tc.text, tc.edit, got)
				}
			}
		})
	}
}

func sameLetters(a, b string) bool {
	x, y := []rune(a), []rune(b)
	slices.Sort(x)
	slices.Sort(y)
	return slices.Equal(x, y)
}

func TestAugment(t *testing.T) {
	docs := []corpus.Example{
		{Text: "you are a stupid idiot", Toxic: true, Source: "own", Lang: "en", Group: "insult", Labels: []string{"insult"}},
		{Text: "what a lovely morning", Source: "own", Lang: "en", Group: "everyday"},
		{Text: "ok", Source: "own", Lang: "en", Toxic: true, Group: "insult", Labels: []string{"insult"}},
		{Text: "you are a stupid idiot", Toxic: true, Source: "davidson", Lang: "en"},
	}
	aw := map[string]float64{"own": 0.5}
	got := augment(docs, aw, Seed)
	if len(got) != 1 {
		t.Fatalf("augment gave %d copies, want 1 (one per toxic own text with a word to edit): %+v", len(got), got)
	}
	for i, a := range got {
		orig := docs[a.from]
		if a.from != i || a.doc.Text == orig.Text || a.doc.Toxic != orig.Toxic || a.doc.Source != orig.Source ||
			a.doc.Group != orig.Group || !slices.Equal(a.doc.Labels, orig.Labels) {
			t.Errorf("copy %d = %+v of %+v", i, a, orig)
		}
	}
	again := augment(docs, aw, Seed)
	if len(again) != len(got) {
		t.Fatalf("second call gave %d copies, first %d", len(again), len(got))
	}
	for i := range got {
		if got[i].doc.Text != again[i].doc.Text {
			t.Errorf("not deterministic: %q then %q", got[i].doc.Text, again[i].doc.Text)
		}
	}
	if n := len(augment(docs, map[string]float64{}, Seed)); n != 0 {
		t.Errorf("no weights gave %d copies", n)
	}
}

func TestKeepBalance(t *testing.T) {
	docs := []corpus.Example{
		{Text: "you are a stupid idiot", Toxic: true, Source: "own", Lang: "en"},
		{Text: "you are a lovely person", Source: "own", Lang: "en"},
		{Text: "du bist ein dummer idiot", Toxic: true, Source: "own", Lang: "de"},
		{Text: "du bist ein lieber mensch", Source: "own", Lang: "de"},
		{Text: "what a nice day", Source: "davidson", Lang: "en"},
	}
	dw := []float64{2, 3, 1, 1, 5}
	extra := []augmented{{doc: docs[0], from: 0}}
	extra[0].doc.Text = "you are a stupid idoit"
	keepBalance(docs, dw, extra, []float64{1})
	// en: toxic 2 + 1 copy = 3, so the harmless side grows by 3/2; de and davidson got no copies.
	if want := []float64{2, 4.5, 1, 1, 5}; !slices.Equal(dw, want) {
		t.Errorf("weights %v, want %v", dw, want)
	}
}

// FuzzMisspell checks that misspell never panics, keeps valid UTF-8 valid, and changes a text
// by one edit: the result is at most one byte-run shorter and never longer than the input.
func FuzzMisspell(f *testing.F) {
	f.Add("you dumb people, go away", uint64(1))
	f.Add("«crétins» et @someone http://x.org", uint64(7))
	f.Add("ab\xffcdef ghij", uint64(3))
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		for e := range numEdits {
			got, ok := misspell(text, e, rand.New(rand.NewPCG(seed, 1)))
			if !ok {
				continue
			}
			if utf8.ValidString(text) && !utf8.ValidString(got) {
				t.Fatalf("edit %d of %q gave invalid UTF-8 %q", e, text, got)
			}
			if len(got) > len(text) || (e == editSwap && len(got) != len(text)) {
				t.Fatalf("edit %d of %q gave %q", e, text, got)
			}
		}
	})
}
