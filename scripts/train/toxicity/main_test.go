package main

import (
	"maps"
	"slices"
	"testing"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func TestWeightsScaleOwn(t *testing.T) {
	docs := []corpus.Example{
		{Text: "a", Source: "germeval"},
		{Text: "b", Source: "own", Lang: "en", Toxic: true, Group: "insult"},
		{Text: "c", Source: "own", Lang: "en", Toxic: true, Group: "insult"},
	}
	one := maps.Clone(sourceWeight)
	one["own"] = 1
	sw := maps.Clone(sourceWeight)
	sw["germeval"], sw["own"] = 3, 2
	base := weights(docs, one)
	got := weights(docs, sw)
	if got[0] != 3 {
		t.Errorf("germeval example weighs %v, want 3", got[0])
	}
	if base[1]+base[2] != ownCell[[2]bool{true, false}] {
		t.Errorf("own cell totals %v, want %v", base[1]+base[2], ownCell[[2]bool{true, false}])
	}
	if got[1] != 2*base[1] || got[2] != 2*base[2] {
		t.Errorf("own=2 gave %v, want twice %v", got[1:], base[1:])
	}
}

func TestKindWeights(t *testing.T) {
	kw := map[string]float64{"exclaim": 4, "aimed": 0.5, "aimed_contrast": kindWeight["aimed_contrast"]}
	docs := []corpus.Example{
		{Text: "a", Source: "own", Group: "exclaim"},
		{Text: "b", Source: "own", Group: "insult"},
		{Text: "c", Source: "davidson", Group: "exclaim"},
		{Text: "d", Source: "own", Group: "aimed"},
		{Text: "e", Source: "own", Group: "aimed_contrast"},
	}
	dw := []float64{1, 1, 1, 2, 1}
	if err := scaleKinds(docs, dw, kw); err != nil {
		t.Fatal(err)
	}
	if want := []float64{4, 1, 1, 1, kindWeight["aimed_contrast"]}; !slices.Equal(dw, want) {
		t.Errorf("weights %v, want %v", dw, want)
	}
	if err := scaleKinds(docs, []float64{1, 1, 1, 1}, map[string]float64{"nosuchkind": 2}); err == nil {
		t.Error("an unknown kind gave no error")
	}
}

func TestReadingWeights(t *testing.T) {
	cases := []struct {
		name            string
		rw              readingWeights
		changes         bool
		implicit, plain float64
	}{
		{"implicit only", readingWeights{}, false, 1, 0},
		{"split half", readingWeights{plainShare: 0.5}, true, 0.5, 0.5},
		{"split a quarter", readingWeights{plainShare: 0.25}, true, 0.75, 0.25},
		{"plain kept, implicit added at half", readingWeights{extra: 0.5}, true, 0.5, 1},
		{"plain kept, implicit added in full", readingWeights{extra: 1}, true, 1, 1},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := c.rw.changes(); got != c.changes {
				t.Errorf("changes() = %v, want %v", got, c.changes)
			}
			i, p := c.rw.split()
			if i != c.implicit || p != c.plain {
				t.Errorf("split() = %v, %v; want %v, %v", i, p, c.implicit, c.plain)
			}
		})
	}
}
