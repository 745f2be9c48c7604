package main

import (
	"fmt"
	"io"
	"unicode"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/nerdata"
)

// missKinds are the kinds of gold names whose misses -misses counts (a name can be of several).
var missKinds = []string{
	"lower case (no capital in any word)",
	"first name alone (one word, a given name in the gazetteer)",
	"next to an emoji, hashtag or handle",
	"a common word (a word of it is in lower case in ordinary text)",
	"other script (a letter that is not Latin)",
	"none of these",
}

// missTable counts, for one set, the gold names of each kind and how many were found exactly.
type missTable struct {
	set           string
	gold, found   []int
	total, found0 int
}

// misses collects the tables when -misses is set (nil otherwise); the gazetteer says which words
// are given names and common words.
var misses struct {
	tables []*missTable
	gaz    *names.Gazetteer
}

// missesFor returns the table of set, creating it.
func missesFor(set string) *missTable {
	for _, t := range misses.tables {
		if t.set == set {
			return t
		}
	}
	t := &missTable{set: set, gold: make([]int, len(missKinds)), found: make([]int, len(missKinds))}
	misses.tables = append(misses.tables, t)
	return t
}

// kindsOf returns the kinds (indices of missKinds) of the gold name e of s.
func kindsOf(s nerdata.Sentence, e nerdata.Entity) []int {
	var out []int
	lower, common, other := true, false, false
	for i := e.Start; i < e.End; i++ {
		w := s[i].Text
		for _, r := range w {
			if unicode.IsUpper(r) {
				lower = false
			}
			if unicode.IsLetter(r) && !unicode.Is(unicode.Latin, r) {
				other = true
			}
		}
		if misses.gaz.Flags(names.Lower(w))&names.Common != 0 {
			common = true
		}
	}
	if lower {
		out = append(out, 0)
	}
	if e.End-e.Start == 1 && misses.gaz.Flags(names.Lower(s[e.Start].Text))&names.Given != 0 {
		out = append(out, 1)
	}
	near := func(i int) bool {
		if i < 0 || i >= len(s) {
			return false
		}
		if nerdata.Handle(s, i) {
			return true
		}
		for _, r := range s[i].Text {
			if r >= 0x1F000 || unicode.Is(unicode.So, r) {
				return true
			}
		}
		return false
	}
	if near(e.Start-1) || near(e.End) {
		out = append(out, 2)
	}
	if common {
		out = append(out, 3)
	}
	if other {
		out = append(out, 4)
	}
	if len(out) == 0 {
		out = append(out, 5)
	}
	return out
}

// countMisses records the gold names of one sentence and whether each was found exactly.
func countMisses(set string, s nerdata.Sentence, gold, pred map[nerdata.Entity]bool) {
	if misses.gaz == nil {
		return
	}
	t := missesFor(set)
	for e := range gold {
		found := pred[e]
		t.total++
		if found {
			t.found0++
		}
		for _, k := range kindsOf(s, e) {
			t.gold[k]++
			if found {
				t.found[k]++
			}
		}
	}
}

// printMisses prints, for each set, each kind's names, recall and share of the misses.
func printMisses(w io.Writer) {
	for _, t := range misses.tables {
		fmt.Fprintf(w, "### Where the missed names go: %s (%d names, %d found exactly, %d missed)\n\n", t.set, t.total, t.found0, t.total-t.found0)
		var rows [][]string
		missed := t.total - t.found0
		for k, name := range missKinds {
			rows = append(rows, []string{name, fmt.Sprint(t.gold[k]), fmt.Sprint(t.found[k]), f3(ratio(t.found[k], t.gold[k])),
				fmt.Sprint(t.gold[k] - t.found[k]), f3(ratio(t.gold[k]-t.found[k], missed))})
		}
		evalkit.Table(w, []string{"kind of name", "gold", "found", "recall", "missed", "share of misses"}, rows)
		fmt.Fprintln(w)
	}
}
