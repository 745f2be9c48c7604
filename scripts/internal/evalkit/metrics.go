package evalkit

import (
	"fmt"
	"io"
	"strings"
)

// Binary counts the outcomes of a binary decision against gold labels.
type Binary struct{ TP, FP, TN, FN int }

// Add records one decision.
func (m *Binary) Add(pred, gold bool) {
	switch {
	case pred && gold:
		m.TP++
	case pred && !gold:
		m.FP++
	case !pred && gold:
		m.FN++
	default:
		m.TN++
	}
}

// N is the number of decisions.
func (m Binary) N() int { return m.TP + m.FP + m.TN + m.FN }

// Precision is TP / (TP + FP); 0 with no positive decision.
func (m Binary) Precision() float64 { return ratio(m.TP, m.TP+m.FP) }

// Recall is TP / (TP + FN); 0 with no positive gold label.
func (m Binary) Recall() float64 { return ratio(m.TP, m.TP+m.FN) }

// F1 is the harmonic mean of precision and recall.
func (m Binary) F1() float64 { return F1(m.Precision(), m.Recall()) }

// FPR is the false-positive rate FP / (FP + TN).
func (m Binary) FPR() float64 { return ratio(m.FP, m.FP+m.TN) }

// Accuracy is (TP + TN) / N.
func (m Binary) Accuracy() float64 { return ratio(m.TP+m.TN, m.N()) }

// F1 is the harmonic mean of p and r, 0 when both are 0.
func F1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Reliability is a calibration table: scores in ten equal bins, with the share of positives in
// each. A calibrated score has, in every bin, a positive share close to the bin's mean score.
type Reliability struct {
	bins [10]struct {
		n, pos int
		sum    float64
	}
}

// Add records one score with its gold label.
func (r *Reliability) Add(score float64, gold bool) {
	i := min(max(int(score*10), 0), 9)
	b := &r.bins[i]
	b.n++
	b.sum += score
	if gold {
		b.pos++
	}
}

// ECE is the expected calibration error: the mean over bins, weighted by their size, of
// |mean score - positive share|.
func (r *Reliability) ECE() float64 {
	var n int
	var e float64
	for _, b := range r.bins {
		if b.n == 0 {
			continue
		}
		n += b.n
		d := b.sum/float64(b.n) - float64(b.pos)/float64(b.n)
		if d < 0 {
			d = -d
		}
		e += d * float64(b.n)
	}
	if n == 0 {
		return 0
	}
	return e / float64(n)
}

// Write prints the table in markdown.
func (r *Reliability) Write(w io.Writer) {
	rows := [][]string{}
	for i, b := range r.bins {
		if b.n == 0 {
			continue
		}
		rows = append(rows, []string{
			fmt.Sprintf("%.1f-%.1f", float64(i)/10, float64(i+1)/10), fmt.Sprint(b.n),
			fmt.Sprintf("%.3f", b.sum/float64(b.n)), fmt.Sprintf("%.3f", float64(b.pos)/float64(b.n)),
		})
	}
	Table(w, []string{"score bin", "n", "mean score", "positive share"}, rows)
	fmt.Fprintf(w, "\nExpected calibration error: %.3f\n", r.ECE())
}

// Table prints a markdown table; columns after the first are right-aligned.
func Table(w io.Writer, header []string, rows [][]string) {
	fmt.Fprintf(w, "| %s |\n", strings.Join(header, " | "))
	align := make([]string, len(header))
	for i := range align {
		align[i] = "---:"
	}
	align[0] = "---"
	fmt.Fprintf(w, "| %s |\n", strings.Join(align, " | "))
	for _, r := range rows {
		fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
	}
}

// Pct formats a share as a percentage with one decimal.
func Pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// F3 formats a number with three decimals.
func F3(x float64) string { return fmt.Sprintf("%.3f", x) }
