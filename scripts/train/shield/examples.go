package main

import (
	"bufio"
	"embed"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// exampleFiles holds the hand-written training examples, one file per language:
//
//	# comment
//	A <labels> | <template>    an attack with its comma-separated labels
//	N <kind> | <template>      a harmless text (often a look-alike of an attack)
//	I <labels> | <template>    an attack meant to be hidden in a document (also used alone)
//	C <kind> | <template>      a harmless document context an I line can be inserted into
//
// examples/ itself holds attacks, look-alikes, documents and hidden attacks in de en es fr it nl
// pt. The subdirectories have budgets of their own: more/ (A and N lines in ar bn id ja ko ru th
// tr vi zh, and more English look-alikes), extra/ (N, C and I lines: short harmless requests in
// 17 languages, long harmless English documents, attacks hidden in reviews), r7/ (English
// attacks of the kinds public sets hold and harmless requests full of trigger words), r9/
// (harmless role-play and persona requests in the seven languages), r10ml/ (the kinds of r7/ in
// bn ko ru th tr vi zh, with harmless twins), r12/ (long harmless English task prompts and
// personas, and a few attacks in the same frames) and kinds/ (issue 32: the ordinary kinds of
// attack people type, with harmless twins, in the seven languages; read by kindExamples with more
// variants and typing noise).
//
// A template may hold alternatives {a|b|c} (not nested); "\n" stands for a line break. Each line
// yields up to maxVariants distinct texts (kindVariants under kinds/), drawn with a seed derived
// from the line itself.
//
//go:embed examples/*.txt examples/more/*.txt examples/extra/*.txt examples/r7/*.txt examples/r9/*.txt examples/r10ml/*.txt examples/r12/*.txt examples/kinds/*.txt
var exampleFiles embed.FS

const maxVariants = 6

type example struct {
	lang   string
	typ    byte // A, N, I or C
	kind   string
	labels []string
	texts  []string
	line   int
	// dir is the directory of examples/ the example was read from ("more", "extra", "r7", ...),
	// or "" for the files of examples/ itself.
	dir string
}

func readExamples() ([]example, error) {
	var out []example
	err := walkExamples("examples", func(p, line string, e example) error {
		if dir := path.Dir(p); dir != "examples" {
			e.dir = path.Base(dir)
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

// walkExamples parses every example line of the files below root (blank lines and # comments
// skipped; the language is the file's name) and calls fn with the file, the line and the
// example; errors name the file and line.
func walkExamples(root string, fn func(p, line string, e example) error) error {
	return fs.WalkDir(exampleFiles, root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		lang := strings.TrimSuffix(path.Base(p), ".txt")
		f, err := exampleFiles.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || line[0] == '#' {
				continue
			}
			e, err := parseExample(lang, line, n)
			if err != nil {
				return fmt.Errorf("%s:%d: %w", p, n, err)
			}
			if err := fn(p, line, e); err != nil {
				return fmt.Errorf("%s:%d: %w", p, n, err)
			}
		}
		return sc.Err()
	})
}

func parseExample(lang, line string, n int) (example, error) {
	head, tmpl, ok := strings.Cut(line, "|")
	fields := strings.Fields(head)
	if !ok || len(fields) != 2 || len(fields[0]) != 1 || !strings.Contains("ANIC", fields[0]) {
		return example{}, fmt.Errorf("want `A|N|I|C <labels or kind> | template`, got %q", line)
	}
	e := example{lang: lang, typ: fields[0][0], line: n}
	if e.typ == 'A' || e.typ == 'I' {
		e.labels = strings.Split(fields[1], ",")
		for _, l := range e.labels {
			if !slices.Contains(shielddata.Labels, l) {
				return example{}, fmt.Errorf("unknown label %q", l)
			}
		}
		slices.Sort(e.labels)
	} else {
		e.kind = fields[1]
	}
	texts, err := expand(strings.TrimSpace(tmpl), lang+fmt.Sprint(n))
	if err != nil {
		return example{}, err
	}
	e.texts = texts
	return e, nil
}

// expand returns up to maxVariants distinct texts of a template, chosen by a generator seeded
// with seed.
func expand(tmpl, seed string) ([]string, error) { return expandN(tmpl, seed, maxVariants) }

// expandN returns up to maxVariants distinct texts of a template, chosen by a generator seeded
// with seed.
func expandN(tmpl, seed string, maxVariants int) ([]string, error) {
	tmpl = strings.ReplaceAll(tmpl, `\n`, "\n")
	var parts [][]string // literal parts have one alternative
	for tmpl != "" {
		i := strings.IndexByte(tmpl, '{')
		if i < 0 {
			parts = append(parts, []string{tmpl})
			break
		}
		j := strings.IndexByte(tmpl[i:], '}')
		if j < 0 {
			return nil, fmt.Errorf("unclosed { in %q", tmpl)
		}
		parts = append(parts, []string{tmpl[:i]}, strings.Split(tmpl[i+1:i+j], "|"))
		tmpl = tmpl[i+j+1:]
	}
	total := 1
	for _, p := range parts {
		total *= len(p)
		if total > 1<<20 {
			break
		}
	}
	rng := rand.New(rand.NewPCG(uint64(len(seed)), uint64(shielddata.Unit(seed)*(1<<53))))
	var out []string
	seen := map[string]bool{}
	for tries := 0; len(out) < min(total, maxVariants) && tries < 50*maxVariants; tries++ {
		var b strings.Builder
		for _, p := range parts {
			if tries == 0 || len(p) == 1 {
				b.WriteString(p[0])
				continue
			}
			b.WriteString(p[rng.IntN(len(p))])
		}
		lines := strings.Split(b.String(), "\n")
		for i, l := range lines {
			lines[i] = strings.Join(strings.Fields(l), " ") // an empty alternative leaves no double space
		}
		s := strings.Join(lines, "\n")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out, nil
}
