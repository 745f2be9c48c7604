package textnorm

import (
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// class holds the character properties Normalize asks about, so that it looks each rune up once
// in a table instead of searching several Unicode range tables per rune.
type class uint8

const (
	cLetter    class = 1 << iota // unicode.IsLetter
	cMark                        // unicode.M
	cDigit                       // unicode.IsDigit
	cInvisible                   // IsInvisible
	cCompat                      // NFKC maps it, on its own, to something else
	cUpper                       // unicode.ToLower changes it
	cDense                       // a letter of a script written without spaces between words
)

// classTableSize covers Latin, Greek, Cyrillic, Armenian, Hebrew, Arabic, the Indic scripts,
// Thai, Georgian, Hangul Jamo and the general punctuation and letter-like symbol blocks.
const classTableSize = 0x3400

// classTable is filled once at start-up and only read afterwards.
var classTable = func() (t [classTableSize]class) {
	for r := range rune(classTableSize) {
		t[r] = computeClass(r)
	}
	return t
}()

func classOf(r rune) class {
	if r >= 0 && r < classTableSize {
		return classTable[r]
	}
	switch {
	case r >= 0x4E00 && r <= 0x9FFF: // CJK ideographs
		return cLetter | cDense
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables (Korean is written with spaces)
		return cLetter
	}
	return computeClass(r)
}

// denseScripts are written without spaces between words: Normalize makes each of their
// characters (with its combining marks) a word, so that word n-grams become character n-grams.
var denseScripts = []*unicode.RangeTable{unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai, unicode.Lao, unicode.Khmer, unicode.Myanmar}

func computeClass(r rune) class {
	var c class
	switch {
	case unicode.IsLetter(r):
		c = cLetter
		if unicode.In(r, denseScripts...) {
			c |= cDense
		}
	case unicode.Is(unicode.M, r):
		c = cMark
	case unicode.IsDigit(r):
		c = cDigit
	case IsInvisible(r):
		c = cInvisible
	}
	if r >= 0 && r <= unicode.MaxRune && !(r >= 0xD800 && r <= 0xDFFF) && norm.NFKC.String(string(r)) != string(r) {
		c |= cCompat
	}
	if unicode.ToLower(r) != r {
		c |= cUpper
	}
	return c
}
