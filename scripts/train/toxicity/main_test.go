package main

import (
	"maps"
	"testing"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func TestParseWeights(t *testing.T) {
	def, err := parseWeights("")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(def, sourceWeight) {
		t.Fatalf("no flag gave %v, want the defaults %v", def, sourceWeight)
	}
	got, err := parseWeights(" germeval = 2 ,own=0.5")
	if err != nil {
		t.Fatal(err)
	}
	if got["germeval"] != 2 || got["own"] != 0.5 || got["davidson"] != sourceWeight["davidson"] {
		t.Errorf("overrides gave %v", got)
	}
	if sourceWeight["germeval"] == 2 {
		t.Error("parseWeights changed the defaults")
	}
	for _, tc := range []struct{ name, spec string }{
		{"NoEquals", "germeval"},
		{"Unknown", "hatecheck=1"},
		{"Twice", "own=1,own=2"},
		{"NotANumber", "own=lots"},
		{"Negative", "mlma=-1"},
		{"NaN", "mlma=NaN"},
		{"Inf", "mlma=+Inf"},
		{"Empty", "mlma="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseWeights(tc.spec); err == nil {
				t.Fatalf("parseWeights(%q) gave no error", tc.spec)
			}
		})
	}
}

func TestWeightsScaleOwn(t *testing.T) {
	docs := []corpus.Example{
		{Text: "a", Source: "germeval"},
		{Text: "b", Source: "own", Lang: "en", Toxic: true, Group: "insult"},
		{Text: "c", Source: "own", Lang: "en", Toxic: true, Group: "insult"},
	}
	one, err := parseWeights("own=1")
	if err != nil {
		t.Fatal(err)
	}
	sw, err := parseWeights("germeval=3,own=2")
	if err != nil {
		t.Fatal(err)
	}
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
