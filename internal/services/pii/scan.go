package pii

import (
	"context"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// checkEvery is how many bytes of text the scanner reads between two looks at its context.
const checkEvery = 2048

// scanner is one pass over a text that finds the candidates of every structured type. It reads
// the text once from left to right and hands each interesting position to a bounded
// recognizer:
//
//   - a digit, '+' or '(' starts a numeric sequence (digit groups joined by short separators),
//     read to its end and examined once for cards, phone numbers, IPv4 addresses and numeric
//     national identifiers;
//   - a letter starts a word, which may be a context keyword ("BSN", "Tel.", "order") or start
//     an IBAN or an identifier that begins with letters (NINO, NIE, codice fiscale);
//   - '@' is the middle of an e-mail address, read to both sides up to the lengths RFC 5321
//     allows;
//   - ':' may be inside an IPv6 address, whose run of hex digits, colons and dots is read once.
//
// Every recognizer reads at most a fixed number of bytes from where it starts (or, for a
// numeric sequence, consumes what it reads), so the whole scan is linear in the text.
type scanner struct {
	text  string
	types kindSet
	cands []cand

	cues   cueState
	phones phoneCache
	groups []group // scratch for numeric sequences
	digits []byte  // scratch for the digits of a candidate
	lower  []byte  // scratch for lower-casing words
	// hexEnd is the end of the last run of hex digits and colons examined for an IPv6
	// address; runs are examined once.
	hexEnd int
}

func newScanner(text string, types kindSet) *scanner {
	return &scanner{text: text, types: types, cues: newCueState(), lower: make([]byte, 0, 64)}
}

func (s *scanner) add(start, end int, k kind) {
	s.cands = append(s.cands, cand{start: start, end: end, k: k})
}

// run scans the whole text. It returns ctx.Err() when ctx is done.
func (s *scanner) run(ctx context.Context) error {
	t := s.text
	next := checkEvery
	for i := 0; i < len(t); {
		if i >= next {
			if err := ctx.Err(); err != nil {
				return err
			}
			next = i + checkEvery
		}
		c := t[i]
		switch {
		case isDigit(c):
			i = s.numeric(i)
		case (c == '+' || c == '(') && i+1 < len(t) && (isDigit(t[i+1]) || (c == '+' && t[i+1] == '(')):
			i = s.numeric(i)
		case c == '@':
			if s.types.has(kEmail) {
				s.email(i)
			}
			i++
		case c == ':':
			if s.types.has(kIP) && i >= s.hexEnd {
				s.ipv6(i)
			}
			i++
		case c < utf8.RuneSelf && !isASCIILetter(c):
			i++
		default:
			i = s.word(i)
		}
	}
	return ctx.Err()
}

// word reads the word starting at i (letters and combining marks, with inner apostrophes and
// hyphens), records it as a context keyword when it is one, and tries the recognizers of values
// that begin with letters. It returns the end of the word, or the next rune when i does not
// start a word.
func (s *scanner) word(i int) int {
	t := s.text
	j := i
	buf := s.lower[:0]
	for j < len(t) {
		c := t[j]
		if c < utf8.RuneSelf {
			if isASCIILetter(c) {
				buf = append(buf, c|0x20)
				j++
				continue
			}
			if (c == '-' || c == '\'') && j > i && j+1 < len(t) && startsLetter(t, j+1) {
				buf = append(buf, c)
				j++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(t[j:])
		if names.IsWordRune(r) {
			if len(buf) < 60 {
				buf = utf8.AppendRune(buf, names.ToLowerRune(r))
			}
			j += n
			continue
		}
		if r == '’' && j > i && j+n < len(t) && startsLetter(t, j+n) {
			buf = append(buf, '\'')
			j += n
			continue
		}
		break
	}
	s.lower = buf[:0]
	if j == i {
		_, n := utf8.DecodeRuneInString(t[i:])
		return i + n
	}
	if len(buf) <= 60 {
		s.cues.word(buf, i, j, t)
	}
	if !isAlnum(runeBefore(t, i)) && j < len(t) && (isDigit(t[j]) || t[j] == ' ' || t[j] == '-') {
		if s.types.has(kIBAN) && j-i == 2 {
			if end, ok := s.iban(i); ok {
				return end
			}
		}
		if s.types.has(kID) {
			if end, ok := s.alphaID(i, j); ok {
				return end
			}
		}
	}
	return j
}

func startsLetter(t string, i int) bool {
	if i >= len(t) {
		return false
	}
	if c := t[i]; c < utf8.RuneSelf {
		return isASCIILetter(c)
	}
	r, _ := utf8.DecodeRuneInString(t[i:])
	return names.IsWordRune(r)
}

// runeBefore returns the rune that ends just before byte offset i, or -1 at the start.
func runeBefore(s string, i int) rune {
	if i <= 0 {
		return -1
	}
	if c := s[i-1]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeLastRuneInString(s[:i])
	return r
}

// runeAt returns the rune starting at byte offset i, or -1 at the end.
func runeAt(s string, i int) rune {
	if i >= len(s) {
		return -1
	}
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c)
	}
	r, _ := utf8.DecodeRuneInString(s[i:])
	return r
}

func isAlnum(r rune) bool { return names.IsAlnumRune(r) }

func isDigit(b byte) bool       { return b >= '0' && b <= '9' }
func isASCIILetter(b byte) bool { return b|0x20 >= 'a' && b|0x20 <= 'z' }
func isUpper(b byte) bool       { return b >= 'A' && b <= 'Z' }
func isASCIIAlnum(b byte) bool  { return isDigit(b) || isASCIILetter(b) }

// digitsOf returns the ASCII digits of s in order.
func digitsOf(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}
