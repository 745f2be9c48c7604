package main

import (
	"maps"
	"slices"
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

func TestKindWeights(t *testing.T) {
	def, err := parseKinds("")
	if err != nil {
		t.Fatal(err)
	}
	if !maps.Equal(def, kindWeight) {
		t.Fatalf("no flag gave %v, want the defaults %v", def, kindWeight)
	}
	kw, err := parseKinds(" exclaim = 4 , aimed=0.5")
	if err != nil {
		t.Fatal(err)
	}
	if kindWeight["exclaim"] == 4 {
		t.Error("parseKinds changed the defaults")
	}
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
	for _, tc := range []struct{ name, spec string }{
		{"NoEquals", "exclaim"},
		{"EmptyKind", "=2"},
		{"Twice", "exclaim=1,exclaim=2"},
		{"Negative", "exclaim=-1"},
		{"NaN", "exclaim=NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseKinds(tc.spec); err == nil {
				t.Fatalf("parseKinds(%q) gave no error", tc.spec)
			}
		})
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
