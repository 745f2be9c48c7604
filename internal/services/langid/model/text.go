package model

import (
	"unicode"
	"unicode/utf8"
)

// Script is the writing system of a letter, as far as language identification cares.
type Script uint8

// Scripts. NoScript means "not a letter"; OtherScript is a letter of a script no supported
// language is written in.
const (
	NoScript Script = iota
	Latin
	Cyrillic
	Greek
	Armenian
	Georgian
	Hebrew
	Arabic
	Devanagari
	Bengali
	Gurmukhi
	Gujarati
	Oriya
	Tamil
	Telugu
	Kannada
	Malayalam
	Sinhala
	Thai
	Myanmar
	Khmer
	Ethiopic
	Hangul
	Kana // Hiragana and Katakana
	Han
	OtherScript
	NumScripts
)

var scriptNames = [NumScripts]string{"none", "Latin", "Cyrillic", "Greek", "Armenian", "Georgian",
	"Hebrew", "Arabic", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu",
	"Kannada", "Malayalam", "Sinhala", "Thai", "Myanmar", "Khmer", "Ethiopic", "Hangul", "Kana", "Han",
	"other"}

func (s Script) String() string {
	if s < NumScripts {
		return scriptNames[s]
	}
	return "invalid"
}

// lowLimit bounds the code points whose script is looked up in a table.
const lowLimit = 0x3000

// lowScripts is the script of every letter below lowLimit (NoScript for what is not a letter):
// read-only after it is built.
var lowScripts = func() *[lowLimit]Script {
	t := new([lowLimit]Script)
	for _, s := range []struct {
		script Script
		table  *unicode.RangeTable
	}{
		{Latin, unicode.Latin}, {Cyrillic, unicode.Cyrillic}, {Greek, unicode.Greek},
		{Armenian, unicode.Armenian}, {Georgian, unicode.Georgian}, {Hebrew, unicode.Hebrew},
		{Arabic, unicode.Arabic}, {Devanagari, unicode.Devanagari}, {Bengali, unicode.Bengali},
		{Gurmukhi, unicode.Gurmukhi}, {Gujarati, unicode.Gujarati}, {Oriya, unicode.Oriya},
		{Tamil, unicode.Tamil}, {Telugu, unicode.Telugu}, {Kannada, unicode.Kannada},
		{Malayalam, unicode.Malayalam}, {Sinhala, unicode.Sinhala}, {Thai, unicode.Thai},
		{Myanmar, unicode.Myanmar}, {Khmer, unicode.Khmer}, {Ethiopic, unicode.Ethiopic},
		{Hangul, unicode.Hangul},
	} {
		for _, r := range s.table.R16 {
			for c := uint32(r.Lo); c <= uint32(r.Hi) && c < lowLimit; c += uint32(r.Stride) {
				t[c] = s.script
			}
		}
	}
	for c := range t {
		if !unicode.IsLetter(rune(c)) {
			t[c] = NoScript
		} else if t[c] == NoScript {
			t[c] = OtherScript
		}
	}
	return t
}()

// ScriptOf returns the script of r, or NoScript when r is not a letter.
func ScriptOf(r rune) Script {
	if r < lowLimit {
		return lowScripts[r]
	}
	switch {
	case r >= 0x4e00 && r <= 0x9fff, r >= 0x3400 && r <= 0x4dbf:
		return Han
	case r >= 0x1f000 && r <= 0x1ffff, r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0000:
		return NoScript // emoji, symbols, variation selectors and tags: no letters
	case r >= 0xac00 && r <= 0xd7a3:
		return Hangul
	case r >= 0x3041 && r <= 0x30ff:
		if r == 0x30fb || !unicode.IsLetter(r) { // the katakana middle dot is punctuation
			return NoScript
		}
		return Kana
	}
	if !unicode.IsLetter(r) {
		return NoScript
	}
	switch {
	case unicode.Is(unicode.Han, r):
		return Han
	case unicode.Is(unicode.Hiragana, r), unicode.Is(unicode.Katakana, r):
		return Kana
	case unicode.Is(unicode.Hangul, r):
		return Hangul
	case unicode.Is(unicode.Latin, r): // fullwidth Latin
		return Latin
	}
	return OtherScript
}

// Lower returns the lower case of a letter, as the training corpora were lower-cased.
func Lower(r rune) rune {
	if r < utf8.RuneSelf {
		if 'A' <= r && r <= 'Z' {
			return r + 'a' - 'A'
		}
		return r
	}
	return unicode.ToLower(r)
}

// SingleCharWords reports whether every letter of s is a word of its own, as lingua's models
// count Han, kana and Hangul characters.
func (s Script) SingleCharWords() bool { return s == Han || s == Kana || s == Hangul }
