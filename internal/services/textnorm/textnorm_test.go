package textnorm

import (
	"testing"
	"unicode/utf8"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"Plain", "Hello, World!", "hello world"},
		{"Apostrophe", "Don't   do\tthat", "dont do that"},
		{"ZeroWidth", "ig\u200bnore all", "ignore all"},
		{"Leet", "1gn0r3 pr3v10us", "ignore previous"},
		{"LeetSymbols", "@ss b!tch $hit", "ass bitch shit"},
		{"NumbersKept", "call 555 1234 in 2024", "call 555 1234 in 2024"},
		{"TrailingBang", "wow!", "wow"},
		{"Homoglyph", "ignоre", "ignore"},
		{"CyrillicWordKept", "привет", "привет"},
		{"Spaced", "i g n o r e this", "ignore this"},
		{"ShortSpacedKept", "a b c", "a b c"},
		{"Mask", "f*ck", "f*ck"},
		{"FullWidth", "ＩＧＮＯＲＥ", "ignore"},
		{"Empty", "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Fold(tc.in).Words; got != tc.want {
				t.Fatalf("Fold(%q).Words = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestFoldCounts(t *testing.T) {
	f := Fold("a\u200bb\u200cc\ufeff i g n o r e")
	if f.Invisible != 3 {
		t.Errorf("Invisible = %d, want 3", f.Invisible)
	}
	if f.Spaced != 1 {
		t.Errorf("Spaced = %d, want 1", f.Spaced)
	}
}

func TestAppendFoldedLetter(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"Upper", "É", "e"},
		{"SharpS", "ß", "ss"},
		{"Ligature", "Æ", "ae"},
		{"Polish", "Ł", "l"},
		{"Greek", "Σ", "σ"},
		{"ASCII", "Q", "q"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, _ := utf8.DecodeRuneInString(tc.in)
			if got := string(AppendFoldedLetter(nil, r)); got != tc.want {
				t.Fatalf("AppendFoldedLetter(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}
