package servicetest

import (
	"context"
	"sort"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/services"
)

// Bench runs one sub-benchmark per input kind on n code points: Prose, then every hostile case.
// Call it from a package's benchmark, e.g. BenchmarkAdversarial; compare each case with Prose.
func Bench(b *testing.B, svc services.Service, cfg Config, n int) {
	d := svc.Descriptor()
	for _, c := range append([]Case{{"Prose", Prose}}, Hostile()...) {
		req := cfg.Request(d, c.Make(n))
		b.Run(c.Name, func(b *testing.B) {
			b.SetBytes(int64(len(req.Payload.Value)))
			for b.Loop() {
				if _, err := svc.Run(context.Background(), req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// Row is one line of an adversarial table: the median time of a case, and its ratio to prose of
// the same length.
type Row struct {
	Case    string
	Median  time.Duration
	ToProse float64
}

// Table measures the median of runs runs of every input kind on n code points, for scripts that
// print the adversarial table. The first row is Prose.
func Table(svc services.Service, cfg Config, n, runs int) ([]Row, error) {
	d := svc.Descriptor()
	var rows []Row
	for _, c := range append([]Case{{"Prose", Prose}}, Hostile()...) {
		req := cfg.Request(d, c.Make(n))
		times := make([]time.Duration, 0, runs)
		for range runs {
			start := time.Now()
			if _, err := svc.Run(context.Background(), req); err != nil {
				return nil, err
			}
			times = append(times, time.Since(start))
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		r := Row{Case: c.Name, Median: times[len(times)/2]}
		if len(rows) > 0 && rows[0].Median > 0 {
			r.ToProse = float64(r.Median) / float64(rows[0].Median)
		} else {
			r.ToProse = 1
		}
		rows = append(rows, r)
	}
	return rows, nil
}
