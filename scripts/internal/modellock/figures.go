package modellock

import (
	"bufio"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// The evaluation commands print markdown tables. A figure is a cell holding a share: a
// percentage ("96.7%", "80.5% (60091)") or a decimal between 0 and 1 ("0.9362"). Its key is
// the heading above the table (with the caption line between them, if any), the row's first cell and its other cells that are not numbers, and
// the column's header (the first column names the row and is never a figure):
//
//	Test splits (through Service.Run) | assistant / CLINC150 test / in-scope accuracy | value
//
// Counts, timings and sizes are not figures: cells without a decimal point or percent sign, and
// columns whose header names a unit of time or size, are skipped.

// timeWords mark columns of timings and sizes in a header.
var timeWords = []string{"µs", "ms", "ns", "time", "/s", "speed", "bytes", "kb", "mb"}

// ParseFigures returns the figures of the tables in text whose heading (and caption) contains one
// of tables (every table when tables is empty). A key that repeats within one table keeps its first
// value.
func ParseFigures(text string, tables []string) map[string]float64 {
	figures := map[string]float64{}
	heading, section := "", ""
	var header []string
	inTable := false
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "#") {
			heading = strings.TrimSpace(strings.TrimLeft(line, "#"))
			section, inTable = heading, false
			continue
		}
		if !strings.HasPrefix(line, "|") {
			if line != "" {
				section = heading + " / " + line // a caption
			}
			inTable = false
			continue
		}
		cells := splitRow(line)
		if !inTable {
			header, inTable = cells, true
			continue
		}
		if isRule(cells) || !selected(section, tables) {
			continue
		}
		names := cells[:1]
		for _, c := range cells[1:] {
			if _, ok := number(c); !ok && !isCount(c) {
				names = append(names, c)
			}
		}
		row := strings.Join(names, " / ")
		for i, c := range cells {
			if i == 0 || i >= len(header) || timeColumn(header[i]) {
				continue
			}
			v, ok := number(c)
			if !ok {
				continue
			}
			key := section + " | " + row + " | " + header[i]
			if _, dup := figures[key]; !dup {
				figures[key] = v
			}
		}
	}
	return figures
}

// Difference is a figure that moved more than the tolerance, or is missing.
type Difference struct {
	Key       string
	Want, Got float64
	Missing   bool
}

func (d Difference) String() string {
	if d.Missing {
		return fmt.Sprintf("%s: %.4f locked, missing now", d.Key, d.Want)
	}
	return fmt.Sprintf("%s: %.4f locked, %.4f now (%+.4f)", d.Key, d.Want, d.Got, d.Got-d.Want)
}

// CompareFigures returns the locked figures that got is missing or that moved by more than
// tolerance, in key order.
func CompareFigures(want, got map[string]float64, tolerance float64) []Difference {
	var out []Difference
	for _, k := range slices.Sorted(maps.Keys(want)) {
		g, ok := got[k]
		switch {
		case !ok:
			out = append(out, Difference{Key: k, Want: want[k], Missing: true})
		case math.Abs(g-want[k]) > tolerance+1e-12:
			out = append(out, Difference{Key: k, Want: want[k], Got: g})
		}
	}
	return out
}

func splitRow(line string) []string {
	line = strings.TrimSuffix(strings.TrimPrefix(line, "|"), "|")
	cells := strings.Split(line, "|")
	for i, c := range cells {
		cells[i] = strings.TrimSpace(c)
	}
	return cells
}

func isRule(cells []string) bool {
	for _, c := range cells {
		if strings.Trim(c, "-: ") != "" {
			return false
		}
	}
	return true
}

func selected(heading string, tables []string) bool {
	if len(tables) == 0 {
		return true
	}
	for _, t := range tables {
		if strings.Contains(heading, t) {
			return true
		}
	}
	return false
}

func timeColumn(h string) bool {
	h = strings.ToLower(h)
	for _, w := range timeWords {
		if strings.Contains(h, w) {
			return true
		}
	}
	return false
}

// number parses a share: a percentage, or a decimal with a point between 0 and 1, optionally
// followed by a parenthesised count or a marker ("0.41 *").
func number(c string) (float64, bool) {
	head, _, _ := strings.Cut(c, " ")
	if p, ok := strings.CutSuffix(head, "%"); ok {
		v, err := strconv.ParseFloat(p, 64)
		if err != nil || v < 0 || v > 100 {
			return 0, false
		}
		return math.Round(v*1e4) / 1e6, true // the percentage's own digits, no float residue
	}
	if !strings.Contains(head, ".") {
		return 0, false
	}
	v, err := strconv.ParseFloat(head, 64)
	if err != nil || v < 0 || v > 1 {
		return 0, false
	}
	return v, true
}

// isCount reports whether c is a number that is no share (a count, a size, a timing).
func isCount(c string) bool {
	head, _, _ := strings.Cut(c, " ")
	_, err := strconv.ParseFloat(strings.TrimSuffix(strings.ReplaceAll(head, ",", ""), "%"), 64)
	return err == nil
}
