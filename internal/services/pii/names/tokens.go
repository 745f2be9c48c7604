package names

import (
	"unicode"
	"unicode/utf8"
)

// Kind is what a token is made of.
type Kind uint8

// Token kinds. Only words can be part of a name; numbers and codes stay in the sequence as
// context ("Apt. 675", "user42").
const (
	Word   Kind = iota // letters and combining marks, with inner apostrophes and hyphens
	Number             // digits only
	Code               // letters and digits mixed
)

// Gap describes what stands between a token and the one before it: punctuation classes and
// line breaks. Zero means spaces only (two alphanumeric runs are never adjacent: they would be
// one token).
type Gap uint16

// Gap bits.
const (
	GapStart   Gap = 1 << iota // the token is the first of the text
	GapNewline                 // a line break
	GapSent                    // sentence punctuation: . ! ? …
	GapComma                   // , ;
	GapColon                   // :
	GapQuote                   // quotation marks
	GapOpen                    // ( [ {
	GapClose                   // ) ] }
	GapDash                    // - – —
	GapOther                   // any other punctuation or symbol
	GapBlank                   // an empty line (two line breaks)
)

// Token is one word, number or code of a text: text[Start:End]. Offsets are 32-bit: texts are
// at most a few hundred kilobytes, and a small token keeps tagging a long text cheap in memory.
type Token struct {
	Start, End int32
	Kind       Kind
	Gap        Gap // between the previous token and this one
}

func isWordRune(r rune) bool { return IsWordRune(r) }

func isDigitRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= '0' && r <= '9'
	}
	return classOf(r)&rcDigit != 0
}

func isJoiner(r rune) bool { return r == '\'' || r == '’' || r == '-' || r == '‐' }

// Tokenize splits text into words, numbers and codes in one pass, recording the punctuation
// and line breaks between them.
func Tokenize(text string) []Token {
	toks := make([]Token, 0, len(text)/5+8)
	gap := GapStart
	newlines := 0
	for i := 0; i < len(text); {
		r, n := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(text[i:])
		}
		alpha, digit := isWordRune(r), isDigitRune(r)
		if !alpha && !digit {
			switch {
			case r == '\n':
				newlines++
				gap |= GapNewline
				if newlines > 1 {
					gap |= GapBlank
				}
			case r == ' ' || r == '\t' || r == '\r' || unicode.IsSpace(r):
			case r == '.' || r == '!' || r == '?' || r == '…':
				gap |= GapSent
			case r == ',' || r == ';':
				gap |= GapComma
			case r == ':':
				gap |= GapColon
			case r == '"' || r == '\'' || r == '«' || r == '»' || r == '„' || r == '“' || r == '”' || r == '‘' || r == '’' || r == '‚':
				gap |= GapQuote
			case r == '(' || r == '[' || r == '{':
				gap |= GapOpen
			case r == ')' || r == ']' || r == '}':
				gap |= GapClose
			case r == '-' || r == '–' || r == '—':
				gap |= GapDash
			default:
				gap |= GapOther
			}
			i += n
			continue
		}
		start := i
		hasDigit, hasAlpha := digit, alpha
		i += n
		for i < len(text) {
			r, n := rune(text[i]), 1
			if r >= utf8.RuneSelf {
				r, n = utf8.DecodeRuneInString(text[i:])
			}
			if isWordRune(r) {
				hasAlpha = true
				i += n
				continue
			}
			if isDigitRune(r) {
				hasDigit = true
				i += n
				continue
			}
			if isJoiner(r) && hasAlpha && !hasDigit && i+n < len(text) {
				r2, _ := utf8.DecodeRuneInString(text[i+n:])
				if isWordRune(r2) {
					i += n
					continue
				}
			}
			break
		}
		k := Word
		switch {
		case hasDigit && hasAlpha:
			k = Code
		case hasDigit:
			k = Number
		}
		// Numbers and codes in a row on one line are one token ("+49 171 2345678",
		// "12.03.2024", a table of figures): they are context for names, never names, and a
		// text of digits costs one token instead of thousands.
		if k != Word && len(toks) > 0 && toks[len(toks)-1].Kind != Word && gap&GapNewline == 0 {
			last := &toks[len(toks)-1]
			last.End = int32(i)
			if k == Code {
				last.Kind = Code
			}
			gap, newlines = 0, 0
			continue
		}
		toks = append(toks, Token{Start: int32(start), End: int32(i), Kind: k, Gap: gap})
		gap, newlines = 0, 0
	}
	return toks
}
