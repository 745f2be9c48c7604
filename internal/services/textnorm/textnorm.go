// Package textnorm puts text into a canonical form for the guardrail classifiers (shield,
// toxicity), so that disguises do not change what they see: NFKC, case folding, removal of
// invisible characters, accents removed from Latin letters, Cyrillic and Greek homoglyphs and
// leetspeak undone, letter-spaced words re-joined, and a look inside base64 and hex blobs.
//
// Normalize is the fast, linear, context-aware form the trained classifiers use (package
// textclass): it yields words with flags saying what was undone. Fold is the older one-string
// form kept for rule-based callers. DecodeBlobs finds the readable text hidden in encoded blobs.
//
// The normal form is meant for matching and scoring only; it is never returned to a client.
package textnorm

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Folded is the result of Fold.
type Folded struct {
	// Words is the text as lower-case words separated by single spaces: letters and digits only
	// (apostrophes are dropped so "don't" becomes "dont"; other punctuation separates words),
	// with homoglyphs and leetspeak undone and letter-spaced words ("i g n o r e") re-joined.
	// A masking "*" between letters ("f*ck") is kept as a literal "*".
	Words string
	// Invisible counts the zero-width, format and other invisible code points that were removed.
	Invisible int
	// Homoglyphs counts letters from another script (Cyrillic, Greek) mapped to look-alike
	// Latin letters inside a word that also has Latin letters.
	Homoglyphs int
	// Leet counts digits and symbols mapped back to letters inside words.
	Leet int
	// Spaced counts letter-spaced runs ("i g n o r e", at least four single Latin letters)
	// re-joined.
	Spaced int
}

// homoglyph maps look-alike Cyrillic and Greek letters (already lower-cased) to Latin ones.
var homoglyph = map[rune]rune{
	'а': 'a', 'в': 'b', 'е': 'e', 'ё': 'e', 'к': 'k', 'м': 'm', 'н': 'h', 'о': 'o', 'р': 'p',
	'с': 'c', 'т': 't', 'у': 'y', 'х': 'x', 'і': 'i', 'ї': 'i', 'ј': 'j', 'ѕ': 's', 'ԁ': 'd',
	'ɡ': 'g', 'ӏ': 'l', 'һ': 'h', 'ԛ': 'q', 'ԝ': 'w',
	'α': 'a', 'β': 'b', 'ε': 'e', 'η': 'n', 'ι': 'i', 'κ': 'k', 'ν': 'v', 'ο': 'o', 'ρ': 'p',
	'τ': 't', 'υ': 'u', 'χ': 'x', 'ω': 'w',
}

// leet maps digits and symbols used as letters.
var leet = map[rune]rune{
	'0': 'o', '1': 'i', '3': 'e', '4': 'a', '5': 's', '7': 't', '8': 'b', '9': 'g',
	'@': 'a', '$': 's', '!': 'i', '|': 'l', '+': 't', '€': 'e', '£': 'l',
}

// IsInvisible reports whether r is a zero-width, format or filler code point that renders as
// nothing (and is commonly used to hide words from filters).
func IsInvisible(r rune) bool {
	switch {
	case r == '\u00AD', r == '\u034F', r == '\u061C', r == '\u115F', r == '\u1160',
		r == '\u17B4', r == '\u17B5', r == '\u180E', r == '\u3164', r == '\uFFA0':
		return true
	case r >= '\uFE00' && r <= '\uFE0F', r >= 0xE0100 && r <= 0xE01EF: // variation selectors
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

// Fold normalizes s for matching.
func Fold(s string) Folded {
	var f Folded
	// Remove invisible characters first, so NFKC composes what they separated.
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if IsInvisible(r) {
			f.Invisible++
			continue
		}
		b.WriteRune(r)
	}
	s = cases.Fold().String(norm.NFKC.String(b.String()))

	// Split into raw words: maximal runs of letters, digits, marks, apostrophes and leet
	// symbols; everything else separates.
	words := make([]string, 0, len(s)/5+1)
	start := -1
	for i, r := range s {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			words = append(words, s[start:i])
			start = -1
		}
	}
	if start >= 0 {
		words = append(words, s[start:])
	}

	out := make([]string, 0, len(words))
	for _, w := range words {
		if c := foldWord(w, &f); c != "" {
			out = append(out, c)
		}
	}
	f.Words = strings.Join(joinSpaced(out, &f), " ")
	return f
}

func isWordRune(r rune) bool {
	if unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.M, r) {
		return true
	}
	switch r {
	case '\'', '’', '*':
		return true
	}
	_, ok := leet[r]
	return ok
}

// foldWord maps homoglyphs and leet characters of one raw word and drops apostrophes and
// non-interior symbols.
func foldWord(w string, f *Folded) string {
	rs := []rune(w)
	letters, latin := 0, false
	for _, r := range rs {
		if unicode.IsLetter(r) {
			letters++
			if r < utf8.RuneSelf {
				latin = true
			}
		}
	}
	var b strings.Builder
	for i, r := range rs {
		switch {
		case r == '\'' || r == '’':
			continue
		case unicode.Is(unicode.M, r):
			// Combining marks left after NFKC on Latin letters are decoration ("zalgo");
			// other scripts need theirs.
			if base := baseBefore(rs, i); base >= 0x250 {
				b.WriteRune(r)
			}
		case unicode.IsLetter(r):
			if m, ok := homoglyph[r]; ok && latin {
				f.Homoglyphs++
				r = m
			}
			b.WriteRune(r)
		case r == '*':
			if letterAt(rs, i-1) && letterAt(rs, i+1) || letterAt(rs, i-1) && i+2 < len(rs) && rs[i+1] == '*' {
				b.WriteRune('*')
			}
		default: // digit or leet symbol
			m, isLeet := leet[r]
			interior := letterAt(rs, i-1) || letterAt(rs, i+1)
			if isLeet && letters >= 2 && interior && (unicode.IsDigit(r) || r == '@' || r == '$' || r == '€' || letterAt(rs, i+1)) {
				f.Leet++
				b.WriteRune(m)
			} else if unicode.IsDigit(r) {
				b.WriteRune(r)
			}
		}
	}
	return b.String()
}

// letterAt reports whether rs[i] is a letter or a leet stand-in adjacent to one.
func letterAt(rs []rune, i int) bool {
	if i < 0 || i >= len(rs) {
		return false
	}
	if unicode.IsLetter(rs[i]) {
		return true
	}
	_, ok := leet[rs[i]]
	return ok && unicode.IsDigit(rs[i]) && (i > 0 && unicode.IsLetter(rs[i-1]) || i+1 < len(rs) && unicode.IsLetter(rs[i+1]))
}

// joinSpaced re-joins runs of at least four single-letter words ("i g n o r e").
func joinSpaced(ws []string, f *Folded) []string {
	out := ws[:0:0]
	for i := 0; i < len(ws); {
		j := i
		for j < len(ws) && len(ws[j]) == 1 && ws[j][0] >= 'a' && ws[j][0] <= 'z' {
			j++
		}
		if j-i >= 4 {
			out = append(out, strings.Join(ws[i:j], ""))
			f.Spaced++
			i = j
			continue
		}
		if j == i {
			j++
		}
		out = append(out, ws[i:j]...)
		i = j
	}
	return out
}

// baseBefore returns the nearest non-mark rune before rs[i], or -1.
func baseBefore(rs []rune, i int) rune {
	for j := i - 1; j >= 0; j-- {
		if !unicode.Is(unicode.M, rs[j]) {
			return rs[j]
		}
	}
	return -1
}
