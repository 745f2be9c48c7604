package devset

import (
	"bufio"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

//go:embed social-media/labels.tsv
var labelsTSV []byte

// Header is the first row of the labels file, its columns in order.
var Header = []string{"file", "line", "sha256", "split", "lang", "toxic", "kinds", "profanity",
	"names_group", "injection", "names", "note"}

// Kinds are the toxicity kinds a toxic line may carry, in the order the labels file lists them.
var Kinds = []string{"insult", "threat", "identity_hate", "harassment", "sexual", "profanity"}

// Language values besides ISO 639-1 codes: no language (emoji, links, handles only) and a
// text written in two languages with neither the main one (see GUIDELINE.md).
const (
	LangNone  = "und"
	LangMixed = "mixed"
)

// maxNote bounds the note column, which holds a short reason and never the text.
const maxNote = 200

// Span is a person name as rune (code point) offsets into the line, half-open.
type Span struct {
	Start, End int
}

// Label is one row of the labels file. See GUIDELINE.md for what each field means.
type Label struct {
	File       string // base name of the source file
	Line       int    // 1-based line number
	SHA256     string // lower-case hex SHA-256 of the line's bytes without the newline
	Split      string // Dev or Holdout, equal to SplitOf(SHA256)
	Lang       string // ISO 639-1 code, LangNone or LangMixed
	Toxic      bool
	Kinds      []string // subset of Kinds in their order; empty unless Toxic
	Profanity  bool
	NamesGroup bool
	Injection  bool
	Names      []Span // sorted, not overlapping
	Note       string
}

// Labels parses the labels file embedded in the package (social-media/labels.tsv).
func Labels() ([]Label, error) {
	return ParseLabels(bytes.NewReader(labelsTSV))
}

// ParseLabels reads a labels file: a header row equal to Header, then one tab-separated row
// per line with every field checked (see Label); a (file, line) pair may occur only once.
// Errors name the row.
func ParseLabels(r io.Reader) ([]Label, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	if !sc.Scan() {
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("devset: labels: %w", err)
		}
		return nil, errors.New("devset: labels: empty file, want a header row")
	}
	if got := sc.Text(); got != strings.Join(Header, "\t") {
		return nil, fmt.Errorf("devset: labels: header is %q, want %q", got, strings.Join(Header, "\t"))
	}
	var out []Label
	seen := map[lineKey]bool{}
	for row := 2; sc.Scan(); row++ {
		l, err := parseRow(sc.Text())
		if err != nil {
			return nil, fmt.Errorf("devset: labels row %d: %w", row, err)
		}
		k := lineKey{l.File, l.Line}
		if seen[k] {
			return nil, fmt.Errorf("devset: labels row %d: %s line %d labelled twice", row, l.File, l.Line)
		}
		seen[k] = true
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("devset: labels: %w", err)
	}
	return out, nil
}

func parseRow(s string) (Label, error) {
	f := strings.Split(s, "\t")
	if len(f) != len(Header) {
		return Label{}, fmt.Errorf("%d columns, want %d", len(f), len(Header))
	}
	var l Label
	var err error
	l.File = f[0]
	if l.File == "" || l.File != filepath.Base(l.File) || strings.ContainsAny(l.File, `/\`) {
		return l, fmt.Errorf("file %q is not a base name", l.File)
	}
	if l.Line, err = strconv.Atoi(f[1]); err != nil || l.Line < 1 || f[1] != strconv.Itoa(l.Line) {
		return l, fmt.Errorf("line %q is not a positive integer", f[1])
	}
	l.SHA256 = f[2]
	if len(l.SHA256) != 64 || strings.Trim(l.SHA256, "0123456789abcdef") != "" {
		return l, fmt.Errorf("sha256 %q is not 64 lower-case hex digits", l.SHA256)
	}
	l.Split = f[3]
	if want := SplitOf(l.SHA256); l.Split != want {
		return l, fmt.Errorf("split %q, want %q (decided by the hash)", l.Split, want)
	}
	l.Lang = f[4]
	if !validLang(l.Lang) {
		return l, fmt.Errorf("lang %q is not an ISO 639-1 code, %q or %q", l.Lang, LangNone, LangMixed)
	}
	flags := []struct {
		name string
		dst  *bool
		val  string
	}{{"toxic", &l.Toxic, f[5]}, {"profanity", &l.Profanity, f[7]}, {"names_group", &l.NamesGroup, f[8]}, {"injection", &l.Injection, f[9]}}
	for _, fl := range flags {
		switch fl.val {
		case "0":
		case "1":
			*fl.dst = true
		default:
			return l, fmt.Errorf("%s %q, want 0 or 1", fl.name, fl.val)
		}
	}
	if l.Kinds, err = parseKinds(f[6]); err != nil {
		return l, err
	}
	if l.Toxic != (len(l.Kinds) > 0) {
		return l, fmt.Errorf("toxic %s with kinds %q: a toxic line has kinds, a clean one none", f[5], f[6])
	}
	if slices.Contains(l.Kinds, "profanity") && !l.Profanity {
		return l, errors.New("kind profanity without profanity 1")
	}
	if slices.Contains(l.Kinds, "identity_hate") && !l.NamesGroup {
		return l, errors.New("kind identity_hate without names_group 1")
	}
	if l.Names, err = parseSpans(f[10]); err != nil {
		return l, err
	}
	l.Note = f[11]
	if utf8.RuneCountInString(l.Note) > maxNote || !utf8.ValidString(l.Note) {
		return l, fmt.Errorf("note longer than %d characters or not UTF-8", maxNote)
	}
	return l, nil
}

func validLang(s string) bool {
	if s == LangNone || s == LangMixed {
		return true
	}
	return len(s) == 2 && 'a' <= s[0] && s[0] <= 'z' && 'a' <= s[1] && s[1] <= 'z'
}

// parseKinds reads a comma-separated subset of Kinds, in their order, without repeats.
func parseKinds(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	last := -1
	for k := range strings.SplitSeq(s, ",") {
		i := slices.Index(Kinds, k)
		if i < 0 {
			return nil, fmt.Errorf("kind %q is not one of %s", k, strings.Join(Kinds, ","))
		}
		if i <= last {
			return nil, fmt.Errorf("kinds %q repeat or are out of order (%s)", s, strings.Join(Kinds, ","))
		}
		last = i
		out = append(out, k)
	}
	return out, nil
}

// parseSpans reads "start-end;start-end", sorted and not overlapping, 0 <= start < end.
func parseSpans(s string) ([]Span, error) {
	if s == "" {
		return nil, nil
	}
	var out []Span
	for p := range strings.SplitSeq(s, ";") {
		a, b, ok := strings.Cut(p, "-")
		start, err1 := strconv.Atoi(a)
		end, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || a != strconv.Itoa(start) || b != strconv.Itoa(end) {
			return nil, fmt.Errorf("names span %q is not start-end", p)
		}
		if start < 0 || end <= start {
			return nil, fmt.Errorf("names span %q is empty or negative", p)
		}
		if n := len(out); n > 0 && start < out[n-1].End {
			return nil, fmt.Errorf("names span %q overlaps or precedes the one before", p)
		}
		out = append(out, Span{start, end})
	}
	return out, nil
}

// Record is a labelled line with its text, read from the data directory. The text must stay in
// memory: never write it to the repository, a log or a report.
type Record struct {
	Label
	Text string
}

// NameText returns the text of each name span of r.
func (r Record) NameText() []string {
	rs := []rune(r.Text)
	out := make([]string, len(r.Names))
	for i, s := range r.Names {
		out[i] = string(rs[s.Start:s.End])
	}
	return out
}

// Load reads the embedded labels and returns them with their text read from dataDir (see
// Attach).
func Load(dataDir string) ([]Record, error) {
	ls, err := Labels()
	if err != nil {
		return nil, err
	}
	return Attach(dataDir, ls)
}

// Attach re-reads each labelled line from dataDir/Dir and returns the records in the labels'
// order. It fails when a file is not one of Sources, a line is missing, its SHA-256 differs
// from the label's, or a name span lies outside the line or starts or ends inside a word.
func Attach(dataDir string, labels []Label) ([]Record, error) {
	files := map[string][][]byte{}
	out := make([]Record, 0, len(labels))
	for _, l := range labels {
		ls, ok := files[l.File]
		if !ok {
			if !slices.ContainsFunc(Sources, func(s Source) bool { return s.Name == l.File }) {
				return nil, fmt.Errorf("devset: %s line %d: not a source file of the sample", l.File, l.Line)
			}
			b, err := os.ReadFile(filepath.Join(dataDir, Dir, l.File))
			if err != nil {
				return nil, fmt.Errorf("devset: read source: %w", err)
			}
			ls = Lines(b)
			files[l.File] = ls
		}
		if l.Line > len(ls) {
			return nil, fmt.Errorf("devset: %s has %d lines, label names line %d", l.File, len(ls), l.Line)
		}
		text := ls[l.Line-1]
		if got := Hash(text); got != l.SHA256 {
			return nil, fmt.Errorf("devset: %s line %d: SHA-256 %s, label says %s (the data changed)", l.File, l.Line, got, l.SHA256)
		}
		if err := CheckSpans(string(text), l.Names); err != nil {
			return nil, fmt.Errorf("devset: %s line %d: %w", l.File, l.Line, err)
		}
		out = append(out, Record{Label: l, Text: string(text)})
	}
	return out, nil
}

// CheckSpans reports an error when a span lies outside text, or does not cover whole words: a
// name starts with a letter, ends with a letter or a full stop (an initial), the runes just
// outside it are not letters, digits or combining marks, and the rune before it is not "@" or
// "#" (handles and hashtags are not names).
func CheckSpans(text string, spans []Span) error {
	rs := []rune(text)
	word := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) }
	for _, s := range spans {
		if s.Start < 0 || s.End > len(rs) || s.Start >= s.End {
			return fmt.Errorf("name span %d-%d outside the line's %d runes", s.Start, s.End, len(rs))
		}
		if !unicode.IsLetter(rs[s.Start]) {
			return fmt.Errorf("name span %d-%d does not start with a letter", s.Start, s.End)
		}
		if last := rs[s.End-1]; !unicode.IsLetter(last) && last != '.' {
			return fmt.Errorf("name span %d-%d does not end with a letter or a full stop", s.Start, s.End)
		}
		if s.Start > 0 && word(rs[s.Start-1]) {
			return fmt.Errorf("name span %d-%d starts inside a word", s.Start, s.End)
		}
		if s.Start > 0 && (rs[s.Start-1] == '@' || rs[s.Start-1] == '#') {
			return fmt.Errorf("name span %d-%d is a handle or a hashtag", s.Start, s.End)
		}
		if s.End < len(rs) && word(rs[s.End]) {
			return fmt.Errorf("name span %d-%d ends inside a word", s.Start, s.End)
		}
	}
	return nil
}
