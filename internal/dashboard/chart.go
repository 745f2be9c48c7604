package dashboard

import (
	"fmt"
	"time"

	"github.com/sluice-api/sluice/internal/store"
)

// chart is the month's characters per day, laid out for an SVG bar chart drawn by the overview
// template. The SVG has no viewBox, so that its text is drawn at its CSS size whatever the
// chart's width: across, positions are percentages of the width; down, CSS pixels.
type chart struct {
	Days     []chartDay
	MaxLabel string // the value of the top grid line
	Total    int64
	Ticks    []chartTick
	Month    string
	Height   float64 // of the SVG, in CSS pixels
	// The plot area: bars stand on the axis at Bottom and reach at most the grid line at Top.
	Top, Bottom float64
}

type chartDay struct {
	Label      string // "Nov 5"
	Characters int64
	X, W       float64 // percent of the width
	Y, H       float64 // CSS pixels
	Future     bool
}

type chartTick struct {
	X     float64 // percent of the width
	Label string
}

// The chart's geometry, in CSS pixels: a strip above the plot for the top grid line's label
// and one below for the day labels (labels are 13 px, see app.css).
const (
	chartH    = 180.0
	plotTop   = 22.0
	plotBelow = 24.0
)

// newChart lays out days (the month of now) as bars; days after today are left empty.
func newChart(now time.Time, days store.Days) chart {
	now = now.UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	n := first.AddDate(0, 1, -1).Day()
	var peak int64
	for i := range n {
		peak = max(peak, days[i])
	}
	top := niceCeil(peak)
	plotH := chartH - plotTop - plotBelow
	c := chart{
		MaxLabel: shortNum(top), Month: now.Format("January 2006"), Height: chartH,
		Top: plotTop, Bottom: plotTop + plotH,
	}
	slot := 100 / float64(n)
	for i := range n {
		v := days[i]
		c.Total += v
		h := 0.0
		if top > 0 {
			h = float64(v) / float64(top) * plotH
		}
		if v > 0 && h < 1 {
			h = 1 // a day with any use shows
		}
		d := chartDay{
			Label: first.AddDate(0, 0, i).Format("Jan 2"), Characters: v,
			X: float64(i)*slot + slot*0.15, W: slot * 0.7,
			Y: plotTop + plotH - h, H: h, Future: i+1 > now.Day(),
		}
		c.Days = append(c.Days, d)
		if i%7 == 0 {
			c.Ticks = append(c.Ticks, chartTick{X: float64(i)*slot + slot/2, Label: fmt.Sprint(i + 1)})
		}
	}
	return c
}

// niceCeil rounds v up to 1, 2 or 5 times a power of ten (at least 10), so the axis reads well.
func niceCeil(v int64) int64 {
	p := int64(1)
	for {
		for _, m := range []int64{1, 2, 5} {
			if c := m * p; c >= v && c >= 10 {
				return c
			}
		}
		p *= 10
	}
}

// shortNum writes n as 950, 12k, 3.5M.
func shortNum(n int64) string {
	switch {
	case n >= 1_000_000_000:
		return trimZero(float64(n)/1e9) + "G"
	case n >= 1_000_000:
		return trimZero(float64(n)/1e6) + "M"
	case n >= 1_000:
		return trimZero(float64(n)/1e3) + "k"
	}
	return fmt.Sprint(n)
}

func trimZero(f float64) string {
	s := fmt.Sprintf("%.1f", f)
	if len(s) > 2 && s[len(s)-2:] == ".0" {
		return s[:len(s)-2]
	}
	return s
}
