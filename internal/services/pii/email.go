package pii

import (
	"context"
	"regexp"
	"strings"
)

// emailRe finds local@domain candidates; findEmails then checks lengths, edges and the TLD.
var emailRe = regexp.MustCompile(`[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}`)

// fileExtensions are endings that have the shape of a TLD but in running text are almost always
// file names (logo@2x.png), and are not delegated top-level domains.
var fileExtensions = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "svg": true, "webp": true, "bmp": true,
	"ico": true, "js": true, "css": true, "json": true, "txt": true, "pdf": true, "html": true,
	"htm": true, "xml": true, "yaml": true, "yml": true, "csv": true, "tiff": true,
}

func findEmails(_ context.Context, text string, _ []Span) []Span {
	var out []Span
	for _, m := range emailRe.FindAllStringIndex(text, -1) {
		start, end := m[0], m[1]
		// A local part starts with a letter, digit or underscore in practice; quotes and other
		// punctuation before it belong to the surrounding text.
		for start < end && !isASCIIAlnum(text[start]) && text[start] != '_' {
			start++
		}
		if s, ok := validEmail(text, start, end); ok {
			out = append(out, s)
		}
	}
	return out
}

func validEmail(text string, start, end int) (Span, bool) {
	v := text[start:end]
	at := strings.LastIndexByte(v, '@')
	if at <= 0 || at > 64 || len(v) > 254 {
		return Span{}, false
	}
	if c := runeBefore(text, start); isAlnum(c) || c == '.' || c == '@' {
		return Span{}, false
	}
	if c := runeAt(text, end); isAlnum(c) || c == '-' || c == '@' || c == '_' ||
		(c == '.' && isAlnum(runeAt(text, end+1))) {
		return Span{}, false
	}
	tld := strings.ToLower(v[strings.LastIndexByte(v, '.')+1:])
	if fileExtensions[tld] {
		return Span{}, false
	}
	return Span{Type: TypeEmail, Start: start, End: end}, true
}

func isASCIIAlnum(b byte) bool {
	return isDigit(b) || (b|0x20 >= 'a' && b|0x20 <= 'z')
}
