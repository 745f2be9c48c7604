package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// Limits of an e-mail address (RFC 5321): a local part of at most 64 bytes and a domain of at
// most 253.
const (
	maxLocal  = 64
	maxDomain = 253
)

// fileExtensions are endings that have the shape of a TLD but in running text are almost always
// file names (logo@2x.png), and are not delegated top-level domains.
var fileExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "bmp": true,
	"ico": true, "js": true, "css": true, "json": true, "txt": true, "pdf": true, "html": true,
	"htm": true, "xml": true, "yaml": true, "yml": true, "csv": true, "tiff": true,
}

func isLocalByte(c byte) bool {
	return isASCIIAlnum(c) || strings.IndexByte("!#$%&'*+/=?^_`{|}~.-", c) >= 0
}

// email reads the address around the '@' at i: the local part to its left (ASCII letters,
// digits and RFC 5322 atom characters, or any Unicode letter) and the domain to its right
// (labels of letters, digits and hyphens, the last one a TLD of two or more letters). Each side
// reads at most its RFC 5321 length, so the work per '@' is bounded.
func (s *scanner) email(at int) {
	t := s.text
	start := at
	for start > 0 && at-start < maxLocal+1 {
		c := t[start-1]
		if c < utf8.RuneSelf {
			if !isLocalByte(c) {
				break
			}
			start--
			continue
		}
		r, n := utf8.DecodeLastRuneInString(t[:start])
		if !names.IsWordRune(r) {
			break
		}
		start -= n
	}
	// Quotes and other punctuation before the address belong to the text around it.
	for start < at && t[start] < utf8.RuneSelf && !isASCIIAlnum(t[start]) && t[start] != '_' {
		start++
	}
	if start == at || at-start > maxLocal || t[at-1] == '.' || t[start] == '.' {
		return
	}
	if c := runeBefore(t, start); isAlnum(c) || c == '.' || c == '@' {
		return
	}
	end, lastDot := at+1, -1
	for end < len(t) && end-at <= maxDomain {
		c := t[end]
		if c < utf8.RuneSelf {
			switch {
			case isASCIIAlnum(c) || c == '-':
				end++
				continue
			case c == '.' && end > at+1 && t[end-1] != '.' && t[end-1] != '-' && startsAlnum(t, end+1):
				lastDot = end
				end++
				continue
			}
			break
		}
		r, n := utf8.DecodeRuneInString(t[end:])
		if !names.IsWordRune(r) {
			break
		}
		end += n
	}
	if lastDot < 0 || end-at > maxDomain || t[end-1] == '-' {
		return
	}
	if c := runeAt(t, end); isAlnum(c) || c == '@' || c == '_' {
		return
	}
	tld := t[lastDot+1 : end]
	if len(tld) < 2 || len(tld) > 63 || fileExtensions[strings.ToLower(tld)] {
		return
	}
	for _, r := range tld {
		if !unicode.IsLetter(r) {
			return
		}
	}
	s.add(start, end, kEmail)
}

func startsAlnum(t string, i int) bool { return isAlnum(runeAt(t, i)) }
