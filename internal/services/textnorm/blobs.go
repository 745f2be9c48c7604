package textnorm

import (
	"encoding/base64"
	"encoding/hex"
	"strings"
	"unicode/utf8"
)

// MaxBlobs bounds how many blobs of each kind DecodeBlobs decodes in one text.
const MaxBlobs = 16

// Shortest blobs DecodeBlobs looks at.
const (
	minBase64 = 20 // characters
	minHex    = 12 // bytes
)

// DecodeBlobs returns the readable texts hidden in obvious base64 blobs (runs of at least 20
// base64 characters, standard or URL alphabet, mixing cases and digits or symbols) and hex blobs
// (at least 12 bytes as hex digit pairs, optionally separated by single spaces or colons) of s:
// those that decode to at least 8 bytes of mostly printable ASCII with letters and spaces. It
// decodes at most MaxBlobs blobs of each kind, in one pass over s; the blobs do not overlap, so
// the decoded texts together are never longer than s.
func DecodeBlobs(s string) []string {
	var out []string
	tried := 0
	for i := 0; i < len(s) && tried < MaxBlobs; {
		if !isBase64(s[i]) {
			i++
			continue
		}
		j := i
		for j < len(s) && isBase64(s[j]) {
			j++
		}
		run := s[i:j]
		for k := 0; k < 2 && j < len(s) && s[j] == '='; k++ {
			j++
		}
		i = j
		if len(run) < minBase64 || !mixedClasses(run) {
			continue
		}
		tried++
		var dec []byte
		var err error
		if strings.ContainsAny(run, "-_") {
			dec, err = base64.RawURLEncoding.DecodeString(run)
		} else {
			dec, err = base64.RawStdEncoding.DecodeString(run)
		}
		if err == nil && readable(dec) {
			out = append(out, string(dec))
		}
	}
	tried = 0
	for i := 0; i < len(s) && tried < MaxBlobs; {
		if !isHex(s[i]) || i > 0 && isWordByte(s[i-1]) {
			i++
			continue
		}
		// Take hex digit pairs, each optionally followed by one separator before the next pair.
		var digits []byte
		j, end := i, i
		for j+1 < len(s) && isHex(s[j]) && isHex(s[j+1]) {
			digits = append(digits, s[j], s[j+1])
			j += 2
			end = j
			if j+2 < len(s) && (s[j] == ' ' || s[j] == ':') && isHex(s[j+1]) && isHex(s[j+2]) {
				j++
			}
		}
		if end == i {
			i++
			continue
		}
		i = end
		if len(digits) < 2*minHex || end < len(s) && isWordByte(s[end]) {
			continue
		}
		tried++
		dec := make([]byte, len(digits)/2)
		if _, err := hex.Decode(dec, digits); err == nil && readable(dec) {
			out = append(out, string(dec))
		}
	}
	return out
}

func isBase64(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '-' || c == '_'
}

func isHex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c >= utf8.RuneSelf
}

// mixedClasses reports whether s mixes upper case, lower case and digits or symbols, as base64
// of text does and ordinary long words do not.
func mixedClasses(s string) bool {
	var up, lo, other bool
	for _, c := range s {
		switch {
		case c >= 'A' && c <= 'Z':
			up = true
		case c >= 'a' && c <= 'z':
			lo = true
		default:
			other = true
		}
	}
	return up && lo && other || up && lo && len(s) >= 32
}

// readable reports whether b looks like natural-language text: at least 8 bytes, almost all
// printable ASCII, with letters and spaces.
func readable(b []byte) bool {
	if len(b) < 8 {
		return false
	}
	printable, letters, spaces := 0, 0, 0
	for _, c := range b {
		switch {
		case c == ' ':
			spaces++
			printable++
		case c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			letters++
			printable++
		case c >= 0x21 && c <= 0x7e || c == '\n' || c == '\t' || c == '\r':
			printable++
		}
	}
	n := len(b)
	return printable*100 >= n*95 && letters*2 >= n && spaces > 0
}
