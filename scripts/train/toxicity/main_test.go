package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/internal/lrtrain"
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

func TestCheckDeepFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  []string
		on   bool
		ok   bool
	}{
		{"NoneOff", nil, false, true},
		{"OtherFlagOff", []string{"seed", "out"}, false, true},
		{"DeepFlagOff", []string{"seed", "deep-dim"}, false, false},
		{"DeepFlagOn", []string{"deep", "deep-dim", "deep-bits"}, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set := map[string]bool{}
			for _, s := range tc.set {
				set[s] = true
			}
			if err := checkDeepFlags(set, tc.on); (err == nil) != tc.ok {
				t.Fatalf("checkDeepFlags(%v, %v) = %v, want ok %v", tc.set, tc.on, err, tc.ok)
			}
		})
	}
}

// TestAddDeep trains a deep part on a small set through the same linear fit as the trainer
// (five folds, whose out-of-fold scores are its offset) and checks it lands in the model, which
// still encodes and decodes.
func TestAddDeep(t *testing.T) {
	ctx := context.Background()
	var primary []lrtrain.Example
	for i := range 400 {
		text, toxic := "you are vermin", true
		switch i % 4 {
		case 1:
			text, toxic = "saying they are vermin is disgusting", false
		case 2:
			text, toxic = "what a lovely day", false
		case 3:
			text, toxic = "they are disgusting vermin", true
		}
		ws, err := toxicity.Spec.Windows(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		primary = append(primary, lrtrain.Example{Features: ws[0].Features, Label: toxic, Weight: 1, Group: fmt.Sprint(i)})
	}
	fit, err := lrtrain.Train(primary, lrtrain.Config{Bits: 12, L2: 1e-3, Folds: 5, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	head, err := fit.Head(toxicity.HeadToxic)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		dc   deepConfig
	}{
		{"Hidden", deepConfig{on: true, bits: 10, dim: 4, hidden: 4, epochs: 3, rate: 0.05}},
		{"NoHidden", deepConfig{on: true, bits: 10, dim: 4, hidden: 0, epochs: 3, rate: 0.05}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &textclass.Model{ID: "t", Spec: toxicity.Spec, Heads: []textclass.Head{head}, Meta: map[string]string{}}
			if err := addDeep(m, primary, fit, tc.dc, 1); err != nil {
				t.Fatal(err)
			}
			if m.Deep == nil || m.Deep.Hidden != tc.dc.hidden || m.Meta["deep"] == "" {
				t.Fatalf("deep part %+v, meta %q", m.Deep, m.Meta["deep"])
			}
			if m.Heads[0].PlattA == head.PlattA && m.Heads[0].PlattB == head.PlattB {
				t.Fatal("the primary head was not recalibrated")
			}
			var b bytes.Buffer
			if err := m.Encode(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := textclass.Decode(b.Bytes()); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestCurseReading checks the round trip of -curse-token: the preparer the trainer trains with
// and the service reading the model file it writes give the curse token or not alike, and
// without the flag the metadata is left as it was.
func TestCurseReading(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "internal", "services", "toxicity")
	file, err := os.ReadFile(filepath.Join(dir, toxicity.ModelFileName))
	if err != nil {
		t.Fatal(err)
	}
	lex, err := os.ReadFile(filepath.Join(dir, toxicity.LexiconFileName))
	if err != nil {
		t.Fatal(err)
	}
	const text = "shit, I forgot my keys"
	for _, c := range []struct {
		name string
		on   bool
	}{{"off", false}, {"on", true}} {
		t.Run(c.name, func(t *testing.T) {
			prep, err := toxicity.NewPreparer(toxicity.GroupsFile, toxicity.PolarityFile, string(lex))
			if err != nil {
				t.Fatal(err)
			}
			meta := map[string]string{}
			if prep, err = curseReading(prep, meta, c.on); err != nil {
				t.Fatal(err)
			}
			if !c.on && len(meta) > 0 {
				t.Fatalf("without the flag the metadata got %v", meta)
			}
			trained, err := prep.Prepare(context.Background(), text, nil)
			if err != nil {
				t.Fatal(err)
			}
			if has := strings.Contains(trained, toxicity.TokenCurse); has != c.on {
				t.Fatalf("trained on %q: curse token %v, want %v", trained, has, c.on)
			}
			m, err := textclass.Decode(file)
			if err != nil {
				t.Fatal(err)
			}
			maps.Copy(m.Meta, meta)
			var buf bytes.Buffer
			if err := m.Encode(&buf); err != nil {
				t.Fatal(err)
			}
			s, err := toxicity.Load(buf.Bytes(), string(lex))
			if err != nil {
				t.Fatal(err)
			}
			served, err := s.Prepared(context.Background(), text)
			if err != nil {
				t.Fatal(err)
			}
			if served != trained {
				t.Fatalf("service prepares %q, trainer %q", served, trained)
			}
		})
	}
}
