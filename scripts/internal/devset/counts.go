package devset

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
)

// topLangs is how many languages the counts table shows by name; the rest are summed as other.
const topLangs = 8

// WriteCounts writes a markdown table of labels' counts per split (dev, holdout, all): lines
// per file, the most frequent languages, each binary label, each toxicity kind, lines with a
// person name and name spans. The README's table is its output.
func WriteCounts(w io.Writer, labels []Label) error {
	cols := []string{Dev, Holdout, "all"}
	in := func(l Label, col string) bool { return col == "all" || l.Split == col }
	var rows [][]string
	row := func(name string, pred func(Label) int) {
		r := []string{name}
		for _, c := range cols {
			n := 0
			for _, l := range labels {
				if in(l, c) {
					n += pred(l)
				}
			}
			r = append(r, fmt.Sprint(n))
		}
		rows = append(rows, r)
	}
	b2i := func(b bool) int {
		if b {
			return 1
		}
		return 0
	}
	row("lines", func(Label) int { return 1 })
	for _, s := range Sources {
		row("  from "+s.Name, func(l Label) int { return b2i(l.File == s.Name) })
	}
	langs := map[string]int{}
	for _, l := range labels {
		langs[l.Lang]++
	}
	order := slices.SortedFunc(maps.Keys(langs), func(a, b string) int {
		return cmp.Or(langs[b]-langs[a], strings.Compare(a, b))
	})
	top := order[:min(topLangs, len(order))]
	for _, lang := range top {
		row("lang "+lang, func(l Label) int { return b2i(l.Lang == lang) })
	}
	if len(order) > len(top) {
		row(fmt.Sprintf("lang other (%d languages)", len(order)-len(top)), func(l Label) int {
			return b2i(!slices.Contains(top, l.Lang))
		})
	}
	row("toxic", func(l Label) int { return b2i(l.Toxic) })
	for _, k := range Kinds {
		row("  kind "+k, func(l Label) int { return b2i(slices.Contains(l.Kinds, k)) })
	}
	row("profanity", func(l Label) int { return b2i(l.Profanity) })
	row("profanity, not toxic", func(l Label) int { return b2i(l.Profanity && !l.Toxic) })
	row("names_group", func(l Label) int { return b2i(l.NamesGroup) })
	row("injection", func(l Label) int { return b2i(l.Injection) })
	row("lines with names", func(l Label) int { return b2i(len(l.Names) > 0) })
	row("name spans", func(l Label) int { return len(l.Names) })

	if _, err := fmt.Fprintf(w, "| count | %s |\n| --- |%s\n", strings.Join(cols, " | "), strings.Repeat(" ---: |", len(cols))); err != nil {
		return err
	}
	for _, r := range rows {
		if _, err := fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | ")); err != nil {
			return err
		}
	}
	return nil
}
