package mlptrain

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/sluice-api/sluice/internal/services/textclass"
)

var spec = textclass.Spec{WordNgrams: 1, Window: 8, Stride: 4}

// window returns the features of text as a one-window model sees them.
func window(t *testing.T, text string) []textclass.Feature {
	t.Helper()
	ws, err := spec.Windows(context.Background(), text)
	if err != nil || len(ws) != 1 {
		t.Fatalf("Windows(%q) = %d windows, %v", text, len(ws), err)
	}
	return ws[0].Features
}

// xorData is what a linear head cannot learn and a hidden layer can: "slur" alone and "frame"
// alone are toxic, the two together (and neither) are not. The linear offset knows nothing
// (Z = 0).
func xorData(t *testing.T, n int) []Example {
	texts := []struct {
		text  string
		toxic bool
	}{{"slur here", true}, {"frame here", true}, {"slur frame here", false}, {"nothing here", false}}
	var ex []Example
	for i := range n {
		c := texts[i%len(texts)]
		ex = append(ex, Example{Features: window(t, c.text), Label: c.toxic, Weight: 1 + float64(i%3), Group: fmt.Sprint(i)})
	}
	return ex
}

func xorConfig() Config {
	return Config{Bits: 10, Dim: 4, Hidden: 4, PlattA: 1, Epochs: 20, Patience: 5, Rate: 0.1, Seed: 3}
}

func TestTrainLearnsInteraction(t *testing.T) {
	ex := xorData(t, 800)
	for _, tc := range []struct {
		name   string
		hidden int
	}{{"HiddenLayer", 4}, {"BagThroughReLU", 0}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := xorConfig()
			cfg.Hidden = tc.hidden
			res, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !(res.QuantizedLoss < 0.2 && res.LinearLoss > 0.6 && res.RecalLinLoss > 0.6) {
				t.Fatalf("held-back loss %.4f quantized, %.4f float, %.4f linear: the network did not learn XOR", res.QuantizedLoss, res.FloatLoss, res.LinearLoss)
			}
			for _, c := range []struct {
				text  string
				toxic bool
			}{{"slur here", true}, {"frame here", true}, {"slur frame here", false}, {"nothing here", false}} {
				z := res.Deep.Raw(window(t, c.text))
				if p := 1 / (1 + math.Exp(-(res.PlattA*z + res.PlattB))); (p >= 0.5) != c.toxic {
					t.Errorf("%q: P = %.3f, want toxic = %v", c.text, p, c.toxic)
				}
			}
		})
	}
}

// TestTrainOffsetUnits checks that the deep part is returned in the units of the linear head's
// raw score: with an offset calibrated by a = 2, the raw scores z_lin + z_deep times a must give
// the logits the network was trained on, whatever a is.
func TestTrainOffsetUnits(t *testing.T) {
	ex := xorData(t, 800)
	for _, tc := range []struct {
		name string
		a    float64
	}{{"A1", 1}, {"A2", 2}, {"AHalf", 0.5}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := xorConfig()
			cfg.PlattA = tc.a
			// Z scaled by 1/a gives the same offsets (0) as before, so the network and its held-back
			// loss must be the same; its output in raw units scales by 1/a.
			res, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			base, err := Train(ex, xorConfig())
			if err != nil {
				t.Fatal(err)
			}
			f := window(t, "slur here")
			if got, want := res.Deep.Raw(f)*tc.a, base.Deep.Raw(f); math.Abs(got-want) > 1e-5*math.Abs(want) {
				t.Fatalf("z_deep * a = %v, want %v", got, want)
			}
		})
	}
}

func TestTrainDeterministic(t *testing.T) {
	ex := xorData(t, 400)
	encode := func() []byte {
		res, err := Train(ex, xorConfig())
		if err != nil {
			t.Fatal(err)
		}
		h, err := textclass.NewHead("toxic", 8, make([]float64, 256), 0, res.PlattA, res.PlattB)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := (&textclass.Model{ID: "t", Spec: spec, Heads: []textclass.Head{h}, Deep: res.Deep}).Encode(&b); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if a, b := encode(), encode(); !bytes.Equal(a, b) {
		t.Fatal("two trainings on the same examples and config give different model files")
	}
}

func TestTrainRefuses(t *testing.T) {
	ex := xorData(t, 40)
	for _, tc := range []struct {
		name   string
		change func(*Config, []Example) []Example
	}{
		{"BitsTooFew", func(c *Config, ex []Example) []Example { c.Bits = 2; return ex }},
		{"DimZero", func(c *Config, ex []Example) []Example { c.Dim = -1; return ex }},
		{"PlattANotPositive", func(c *Config, ex []Example) []Example { c.PlattA = 0; return ex }},
		{"HoldoutOne", func(c *Config, ex []Example) []Example { c.Holdout = 1; return ex }},
		{"NegativeL2", func(c *Config, ex []Example) []Example { c.L2 = -1; return ex }},
		{"ZeroWeight", func(c *Config, ex []Example) []Example { ex[3].Weight = 0; return ex }},
		{"NaNScore", func(c *Config, ex []Example) []Example { ex[3].Z = math.NaN(); return ex }},
		{"NoHoldout", func(c *Config, ex []Example) []Example { c.Holdout = 1e-9; return ex }},
		{"NegativeMinCount", func(c *Config, ex []Example) []Example { c.MinCount = -1; return ex }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := xorConfig()
			bad := tc.change(&cfg, append([]Example(nil), ex...))
			if _, err := Train(bad, cfg); err == nil {
				t.Fatal("Train accepted a bad input")
			}
		})
	}
}

func TestTrainMinCount(t *testing.T) {
	ex := xorData(t, 400)
	ex[1].Features = window(t, "slur here rareword") // the only window with "rareword"
	rare := window(t, "rareword")[0]
	for _, tc := range []struct {
		name     string
		minCount int
		zero     bool
	}{{"Off", 0, false}, {"Two", 2, true}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := xorConfig()
			cfg.MinCount = tc.minCount
			cfg.Holdout = 0.01 // keep example 1 in the training part
			if unit(cfg.Seed, ex[1].Group) < cfg.Holdout {
				t.Fatal("example 1 is held back: pick another seed")
			}
			res, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := int(rare.ID(cfg.Bits)) * cfg.Dim
			zero := true
			for _, q := range res.Deep.Emb[r : r+cfg.Dim] {
				zero = zero && q == 0
			}
			if zero != tc.zero {
				t.Fatalf("row of a feature in one window: all zero = %v, want %v", zero, tc.zero)
			}
		})
	}
}
