package devset

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

var header = strings.Join(Header, "\t") + "\n"

// row builds a labels row for a text: its hash and split, then the given label columns (lang
// to note, eight of them).
func row(file string, line int, text string, cols ...string) string {
	sum := Hash([]byte(text))
	return strings.Join(append([]string{file, strconv.Itoa(line), sum, SplitOf(sum)}, cols...), "\t") + "\n"
}

func TestParseLabels(t *testing.T) {
	clean := row("f.txt", 1, "hello Anna", "en", "0", "", "0", "0", "0", "6-10", "")
	for _, tc := range []struct {
		name    string
		in      string
		wantErr string // "" for success
	}{
		{"HeaderOnly", header, ""},
		{"CleanRow", header + clean, ""},
		{"ToxicRow", header + row("f.txt", 2, "x", "en", "1", "insult,identity_hate,profanity", "1", "1", "0", "", "slur"), ""},
		{"SeveralSpans", header + row("f.txt", 3, "x", "en", "0", "", "0", "0", "0", "0-3;5-9;10-11", ""), ""},
		{"Und", header + row("f.txt", 4, "x", "und", "0", "", "0", "0", "0", "", ""), ""},
		{"Empty", "", "empty file"},
		{"WrongHeader", "file\tline\n", "header"},
		{"TooFewColumns", header + "f.txt\t1\n", "columns"},
		{"PathNotBaseName", header + strings.Replace(clean, "f.txt", "dir/f.txt", 1), "base name"},
		{"LineZero", header + row("f.txt", 0, "hello Anna", "en", "0", "", "0", "0", "0", "", ""), "positive"},
		{"LineNotNumber", header + strings.Replace(clean, "\t1\t", "\tone\t", 1), "positive"},
		{"LineLeadingZero", header + strings.Replace(clean, "\t1\t", "\t01\t", 1), "positive"},
		{"UpperHex", header + strings.Replace(clean, Hash([]byte("hello Anna")), strings.ToUpper(Hash([]byte("hello Anna"))), 1), "hex"},
		{"WrongSplit", header + strings.Replace(clean, "\t"+SplitOf(Hash([]byte("hello Anna")))+"\t", "\tother\t", 1), "split"},
		{"BadLang", header + row("f.txt", 1, "x", "eng", "0", "", "0", "0", "0", "", ""), "lang"},
		{"FlagNotBinary", header + row("f.txt", 1, "x", "en", "2", "", "0", "0", "0", "", ""), "toxic"},
		{"ToxicWithoutKinds", header + row("f.txt", 1, "x", "en", "1", "", "0", "0", "0", "", ""), "kinds"},
		{"KindsWithoutToxic", header + row("f.txt", 1, "x", "en", "0", "insult", "0", "0", "0", "", ""), "kinds"},
		{"UnknownKind", header + row("f.txt", 1, "x", "en", "1", "rude", "0", "0", "0", "", ""), "not one of"},
		{"KindsOutOfOrder", header + row("f.txt", 1, "x", "en", "1", "threat,insult", "0", "0", "0", "", ""), "order"},
		{"KindRepeated", header + row("f.txt", 1, "x", "en", "1", "insult,insult", "0", "0", "0", "", ""), "repeat"},
		{"ProfanityKindNeedsFlag", header + row("f.txt", 1, "x", "en", "1", "profanity", "0", "0", "0", "", ""), "profanity"},
		{"IdentityHateNeedsGroup", header + row("f.txt", 1, "x", "en", "1", "identity_hate", "0", "0", "0", "", ""), "names_group"},
		{"SpanNotNumbers", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "a-b", ""), "start-end"},
		{"SpanEmpty", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "3-3", ""), "empty"},
		{"SpanNegative", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "-1-3", ""), "start-end"},
		{"SpansOverlap", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "0-5;4-6", ""), "overlaps"},
		{"SpansUnsorted", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "5-6;0-2", ""), "overlaps"},
		{"NoteTooLong", header + row("f.txt", 1, "x", "en", "0", "", "0", "0", "0", "", strings.Repeat("n", maxNote+1)), "note"},
		{"DuplicateRow", header + clean + clean, "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseLabels(strings.NewReader(tc.in))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("ParseLabels: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("ParseLabels error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestParseLabelsFields(t *testing.T) {
	in := header + row("f.txt", 7, "x", "de", "1", "insult,profanity", "1", "0", "1", "2-5;9-12", "banter")
	ls, err := ParseLabels(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Label{File: "f.txt", Line: 7, SHA256: Hash([]byte("x")), Split: SplitOf(Hash([]byte("x"))),
		Lang: "de", Toxic: true, Kinds: []string{"insult", "profanity"}, Profanity: true, Injection: true,
		Names: []Span{{2, 5}, {9, 12}}, Note: "banter"}
	if len(ls) != 1 || !equalLabel(ls[0], want) {
		t.Fatalf("ParseLabels = %+v, want %+v", ls, want)
	}
}

func equalLabel(a, b Label) bool {
	return a.File == b.File && a.Line == b.Line && a.SHA256 == b.SHA256 && a.Split == b.Split &&
		a.Lang == b.Lang && a.Toxic == b.Toxic && slices.Equal(a.Kinds, b.Kinds) &&
		a.Profanity == b.Profanity && a.NamesGroup == b.NamesGroup && a.Injection == b.Injection &&
		slices.Equal(a.Names, b.Names) && a.Note == b.Note
}

func TestCheckSpans(t *testing.T) {
	const text = "ask tomasz, cc Anna-Marie and J. Smith's cat @bob #Ann é" // rune offsets below
	for _, tc := range []struct {
		name    string
		spans   []Span
		wantErr string
	}{
		{"LowerCaseName", []Span{{4, 10}}, ""},
		{"HyphenatedName", []Span{{15, 25}}, ""},
		{"InitialAndSurnameBeforePossessive", []Span{{30, 38}}, ""},
		{"Initial", []Span{{30, 32}}, ""},
		{"StartsInsideWord", []Span{{5, 10}}, "starts inside"},
		{"EndsInsideWord", []Span{{4, 9}}, "ends inside"},
		{"EndsOnComma", []Span{{4, 11}}, "end with a letter"},
		{"StartsOnSpace", []Span{{3, 10}}, "start with a letter"},
		{"Handle", []Span{{46, 49}}, "handle"},
		{"Hashtag", []Span{{51, 54}}, "handle"},
		{"PastEnd", []Span{{55, 58}}, "outside"},
		{"LastRuneIsAccented", []Span{{55, 56}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := CheckSpans(text, tc.spans)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckSpans: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("CheckSpans error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}
}

func TestAttach(t *testing.T) {
	src := Sources[0].Name
	lines := []string{"hello Anna", "", "cc tomasz ✓ and Łukasz's dog"}
	data := writeData(t, map[string]string{src: strings.Join(lines, "\n") + "\n"})
	good := []Label{
		{File: src, Line: 1, SHA256: Hash([]byte(lines[0])), Names: []Span{{6, 10}}},
		{File: src, Line: 3, SHA256: Hash([]byte(lines[2])), Names: []Span{{3, 9}, {16, 22}}},
	}
	recs, err := Attach(data, good)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range recs {
		names = append(names, r.NameText()...)
	}
	if !slices.Equal(names, []string{"Anna", "tomasz", "Łukasz"}) || recs[1].Text != lines[2] {
		t.Fatalf("names %q, text of line 3 %q", names, recs[1].Text)
	}

	for _, tc := range []struct {
		name    string
		label   Label
		wantErr string
	}{
		{"HashMismatch", Label{File: src, Line: 1, SHA256: Hash([]byte("hello Anne"))}, "SHA-256"},
		{"LinePastEnd", Label{File: src, Line: 4, SHA256: good[0].SHA256}, "has 3 lines"},
		{"NotASource", Label{File: "other.txt", Line: 1, SHA256: good[0].SHA256}, "not a source"},
		{"SpanPastLine", Label{File: src, Line: 1, SHA256: good[0].SHA256, Names: []Span{{6, 11}}}, "outside"},
		{"SpanInsideWord", Label{File: src, Line: 1, SHA256: good[0].SHA256, Names: []Span{{7, 10}}}, "inside a word"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Attach(data, []Label{good[0], tc.label})
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Attach error = %v, want one containing %q", err, tc.wantErr)
			}
		})
	}

	missing := Label{File: Sources[1].Name, Line: 1, SHA256: good[0].SHA256}
	if _, err := Attach(data, []Label{missing}); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("Attach of a missing file: %v, want an os.ErrNotExist", err)
	}
}

// TestEmbeddedLabels checks the committed labels file: it parses, and, when the shared data is
// there, every row's line still has its hash and every name span covers whole words.
func TestEmbeddedLabels(t *testing.T) {
	ls, err := Labels()
	if err != nil {
		t.Fatal(err)
	}
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, Dir)); err != nil {
		t.Skipf("social-media data not found under %s; parsed %d labels", data, len(ls))
	}
	recs, err := Load(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(ls) {
		t.Fatalf("loaded %d records for %d labels", len(recs), len(ls))
	}
	for _, r := range recs {
		for _, n := range r.NameText() {
			if strings.ContainsAny(n, "@#/\n\t") {
				t.Errorf("%s line %d: name span holds a handle, hashtag or URL character", r.File, r.Line)
			}
		}
	}
}

func TestWriteCounts(t *testing.T) {
	mk := func(split, lang string, toxic bool, kinds []string, names int) Label {
		l := Label{File: Sources[0].Name, Split: split, Lang: lang, Toxic: toxic, Kinds: kinds, Profanity: slices.Contains(kinds, "profanity")}
		for i := range names {
			l.Names = append(l.Names, Span{i * 2, i*2 + 1})
		}
		return l
	}
	labels := []Label{
		mk(Dev, "en", true, []string{"insult", "profanity"}, 2),
		mk(Dev, "es", false, nil, 0),
		mk(Holdout, "en", false, nil, 1),
	}
	var b bytes.Buffer
	if err := WriteCounts(&b, labels); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| count | dev | holdout | all |",
		"| lines | 2 | 1 | 3 |",
		"| lang en | 1 | 1 | 2 |",
		"| lang es | 1 | 0 | 1 |",
		"| toxic | 1 | 0 | 1 |",
		"|   kind insult | 1 | 0 | 1 |",
		"| profanity, not toxic | 0 | 0 | 0 |",
		"| lines with names | 1 | 1 | 2 |",
		"| name spans | 2 | 1 | 3 |",
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("counts table lacks row %q:\n%s", want, out)
		}
	}
}

func FuzzParseLabels(f *testing.F) {
	f.Add(header)
	f.Add(header + row("f.txt", 1, "hello Anna", "en", "0", "", "0", "0", "0", "6-10", ""))
	f.Add(header + row("f.txt", 2, "x", "en", "1", "insult,identity_hate,profanity", "1", "1", "0", "0-1;3-4", "a note"))
	f.Add(header + "f.txt\t1\t\t\t\t\t\t\t\t\t\t\n")
	f.Add(header + row("f.txt", 3, "x", "en", "0", "", "0", "0", "0", "9223372036854775807-1", ""))
	f.Add(string(labelsTSV))
	f.Fuzz(func(t *testing.T, in string) {
		ls, err := ParseLabels(strings.NewReader(in))
		if err != nil {
			return
		}
		for _, l := range ls {
			if l.Line < 1 || l.Split != SplitOf(l.SHA256) || l.Toxic != (len(l.Kinds) > 0) {
				t.Fatalf("accepted an inconsistent row: %+v", l)
			}
			for i, s := range l.Names {
				if s.Start < 0 || s.End <= s.Start || (i > 0 && s.Start < l.Names[i-1].End) {
					t.Fatalf("accepted bad spans %v", l.Names)
				}
			}
		}
	})
}
