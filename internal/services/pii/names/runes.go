package names

import (
	"sync"
	"unicode"
	"unicode/utf8"
)

// runeClass is what the tokenizers need to know about a code point.
type runeClass uint8

const (
	rcWord  runeClass = 1 << iota // a letter or a combining mark
	rcUpper                       // an upper-case letter
	rcLower                       // a lower-case letter
	rcDigit                       // a decimal digit
	rcFolds                       // unicode.ToLower changes it
	// rcOtherCased: a letter with case in a script other than Latin (Cyrillic, Greek,
	// Armenian, ...): its capital is the only sign of a name the tagger could read, and it has
	// seen no labelled text in those scripts (see analyse).
	rcOtherCased
)

// bmpClasses holds the class of every code point of the Basic Multilingual Plane, built once
// per process (a few milliseconds) and only read: the unicode package's range tables cost a
// binary search per call, which dominated tagging text in non-Latin scripts.
var bmpClasses = sync.OnceValue(func() *[0x10000]runeClass {
	var t [0x10000]runeClass
	for r := range rune(0x10000) {
		t[r] = slowClass(r)
	}
	return &t
})

func slowClass(r rune) runeClass {
	var c runeClass
	if unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) {
		c |= rcWord
	}
	if unicode.IsUpper(r) {
		c |= rcUpper
	}
	if unicode.IsLower(r) {
		c |= rcLower
	}
	if unicode.IsDigit(r) {
		c |= rcDigit
	}
	if unicode.ToLower(r) != r {
		c |= rcFolds
	}
	if (unicode.IsUpper(r) || unicode.IsLower(r)) && !unicode.Is(unicode.Latin, r) {
		c |= rcOtherCased
	}
	return c
}

// asciiClasses holds the class of every ASCII code point: most text is ASCII, and the table of
// the whole plane sits behind a sync.OnceValue call.
var asciiClasses = func() (t [utf8.RuneSelf]runeClass) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = slowClass(r)
	}
	return t
}()

func classOf(r rune) runeClass {
	switch {
	case r < 0:
		return 0
	case r < utf8.RuneSelf:
		return asciiClasses[r]
	case r < 0x10000:
		return bmpClasses()[r]
	case r >= 0x1F000 && r < 0x1FB00: // emoji and pictographs
		return 0
	}
	return slowClass(r)
}

// IsWordRune reports whether r is a letter or a combining mark.
func IsWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r|0x20 >= 'a' && r|0x20 <= 'z'
	}
	return classOf(r)&rcWord != 0
}

// IsAlnumRune reports whether r is a letter, a combining mark or a decimal digit.
func IsAlnumRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r|0x20 >= 'a' && r|0x20 <= 'z' || r >= '0' && r <= '9'
	}
	return classOf(r)&(rcWord|rcDigit) != 0
}

// ToLowerRune is unicode.ToLower, looked up in the class table first: only a code point that
// has a lower-case form pays for the case tables.
func ToLowerRune(r rune) rune {
	if r < utf8.RuneSelf {
		if r >= 'A' && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	if classOf(r)&rcFolds == 0 {
		return r
	}
	return unicode.ToLower(r)
}

// Warm builds the lookup tables, so that the first request does not pay for it.
func Warm() { bmpClasses() }
