// Package devset is Sluice's hand-labelled development set of real social-media text, shared by
// the jailbreak shield, the toxicity flag and the person-name tagger: it draws the sample from
// unlabeled/social-media in the shared data, parses the labels (social-media/labels.tsv, keyed
// by file, line and SHA-256, never the text), re-reads the labelled lines and verifies their
// hashes, and tells trainers which lines to keep out of their training data.
//
// The sample is drawn the same way every time (see Sample): from each file, the lines that are
// neither blank nor an exact duplicate (after trimming spaces) of an earlier line, in the order
// twitter-palm, twitter-rigo, youtube-comments, ranked by SHA-256(Seed, file, trimmed text);
// the lowest-ranked PerFile lines of each file are the sample. A line's split is decided by the
// SHA-256 of its bytes (SplitOf): one third holdout, two thirds dev.
//
// The text itself is never stored in the repository (Twitter/X and YouTube terms apply to it):
// it lives only in memory, read from the data directory.
package devset

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Dir is the folder of the source text under the shared data directory.
const Dir = "unlabeled/social-media"

// Seed fixes the draw; changing it draws a different sample (and orphans every label).
const Seed = "sluice-devset-social-media-v1"

// Splits.
const (
	Dev     = "dev"
	Holdout = "holdout"
)

// Source is one file of the sample and how many of its lines are drawn.
type Source struct {
	Name    string
	PerFile int
}

// Sources are the files of the sample, in the order in which duplicates are resolved (a line
// already seen in an earlier file, or earlier in the same file, is never drawn).
var Sources = []Source{
	{"twitter-palm.txt", 500},
	{"twitter-rigo.txt", 500},
	{"youtube-comments.txt", 800},
}

// Ref identifies one sampled line: its file's base name, its 1-based line number, the hex
// SHA-256 of its bytes (without the newline) and its split. Rank is its position in the file's
// draw (0 first); labelling went through the sample in rank order.
type Ref struct {
	File   string
	Line   int
	SHA256 string
	Split  string
	Rank   int
}

// Hash is the lower-case hex SHA-256 of line.
func Hash(line []byte) string {
	h := sha256.Sum256(line)
	return hex.EncodeToString(h[:])
}

// SplitOf returns the split of the line whose hex SHA-256 is sum: holdout when the first eight
// bytes of the hash, read as a big-endian integer, are divisible by 3; dev otherwise. It returns
// "" when sum is not a hex SHA-256.
func SplitOf(sum string) string {
	b, err := hex.DecodeString(sum)
	if err != nil || len(b) != sha256.Size {
		return ""
	}
	if binary.BigEndian.Uint64(b[:8])%3 == 0 {
		return Holdout
	}
	return Dev
}

// Lines splits a file's content into its lines (without "\n"); a final newline does not start
// another line. Line i+1 of the file is Lines(b)[i].
func Lines(content []byte) [][]byte {
	if len(content) == 0 {
		return nil
	}
	ls := bytes.Split(content, []byte("\n"))
	if len(ls[len(ls)-1]) == 0 {
		ls = ls[:len(ls)-1]
	}
	return ls
}

// draw ranks the eligible lines of one file and returns the n lowest-ranked, sorted by line.
// seen holds the trimmed text of every line already considered (this file's and earlier
// files'); draw adds this file's lines to it.
func draw(name string, content []byte, n int, seen map[string]bool) []Ref {
	type cand struct {
		score [sha256.Size]byte
		ref   Ref
	}
	var cands []cand
	for i, l := range Lines(content) {
		t := string(bytes.TrimSpace(l))
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		h := sha256.New()
		h.Write([]byte(Seed))
		h.Write([]byte{0})
		h.Write([]byte(name))
		h.Write([]byte{0})
		h.Write([]byte(t))
		var c cand
		h.Sum(c.score[:0])
		sum := Hash(l)
		c.ref = Ref{File: name, Line: i + 1, SHA256: sum, Split: SplitOf(sum)}
		cands = append(cands, c)
	}
	slices.SortFunc(cands, func(a, b cand) int {
		if c := bytes.Compare(a.score[:], b.score[:]); c != 0 {
			return c
		}
		return a.ref.Line - b.ref.Line
	})
	out := make([]Ref, 0, min(n, len(cands)))
	for i, c := range cands[:min(n, len(cands))] {
		c.ref.Rank = i
		out = append(out, c.ref)
	}
	slices.SortFunc(out, func(a, b Ref) int { return a.Line - b.Line })
	return out
}

// Sample draws the sample from the files of Sources under dataDir/Dir. It returns the refs
// file by file, each file's in line order, and an error when a file cannot be read or holds
// fewer eligible lines than its PerFile.
func Sample(dataDir string) ([]Ref, error) {
	seen := map[string]bool{}
	var out []Ref
	for _, s := range Sources {
		b, err := os.ReadFile(filepath.Join(dataDir, Dir, s.Name))
		if err != nil {
			return nil, fmt.Errorf("devset: read source: %w", err)
		}
		refs := draw(s.Name, b, s.PerFile, seen)
		if len(refs) < s.PerFile {
			return nil, fmt.Errorf("devset: %s has %d eligible lines, want %d", s.Name, len(refs), s.PerFile)
		}
		out = append(out, refs...)
	}
	return out, nil
}

// Excluder tells a trainer whether a line of the source files belongs to the sample (either
// split), so that it stays out of training data. Build it with NewExcluder.
type Excluder struct {
	lines map[lineKey]bool
	texts map[[sha256.Size]byte]bool
}

type lineKey struct {
	file string
	line int
}

// NewExcluder draws the sample from dataDir (see Sample) and returns an Excluder for it. It
// needs the data, not the labels, so it covers every sampled line whether labelled yet or not.
func NewExcluder(dataDir string) (*Excluder, error) {
	refs, err := Sample(dataDir)
	if err != nil {
		return nil, err
	}
	e := &Excluder{lines: map[lineKey]bool{}, texts: map[[sha256.Size]byte]bool{}}
	files := map[string][][]byte{}
	for _, r := range refs {
		ls, ok := files[r.File]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dataDir, Dir, r.File))
			if err != nil {
				return nil, fmt.Errorf("devset: read source: %w", err)
			}
			ls = Lines(b)
			files[r.File] = ls
		}
		e.lines[lineKey{r.File, r.Line}] = true
		e.texts[sha256.Sum256(bytes.TrimSpace(ls[r.Line-1]))] = true
	}
	return e, nil
}

// Sampled reports whether line (1-based) of the source file with base name file is in the
// sample.
func (e *Excluder) Sampled(file string, line int) bool {
	return e.lines[lineKey{filepath.Base(file), line}]
}

// Excludes reports whether text, with surrounding spaces trimmed, equals a sampled line (also
// trimmed). It catches a sampled text wherever it occurs: at another line of the same file, in
// another file, or in a reader that trims lines and forgets their numbers.
func (e *Excluder) Excludes(text string) bool {
	return e.texts[sha256.Sum256([]byte(strings.TrimSpace(text)))]
}

// Len is the number of sampled lines.
func (e *Excluder) Len() int { return len(e.lines) }
