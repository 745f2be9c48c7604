package lrtrain

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/sluice-api/sluice/internal/services/textclass"
)

// synthetic draws n examples from a known logistic model over 20 features: feature j has true
// weight trueW[j]; each example has 1 to 6 random features with value 0.5 each (a varying count,
// so the bias is identifiable).
func synthetic(n int, seed uint64) ([]Example, []float64, []uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	trueW := make([]float64, 20)
	hashes := make([]uint64, 20)
	for j := range trueW {
		trueW[j] = float64(j-10) / 2.5 // -4 .. 3.6
		hashes[j] = uint64(j+1) << 56  // distinct top bits: distinct slots for any bits >= 8
	}
	ex := make([]Example, n)
	for i := range ex {
		var fs []textclass.Feature
		z := -0.3
		for _, j := range rng.Perm(20)[:1+rng.IntN(6)] {
			fs = append(fs, textclass.Feature{Hash: hashes[j], Value: 0.5})
			z += trueW[j] * 0.5
		}
		slices.SortFunc(fs, func(a, b textclass.Feature) int { return int(a.Hash>>56) - int(b.Hash>>56) })
		ex[i] = Example{Features: fs, Label: rng.Float64() < Sigmoid(z), Weight: 1, Group: fmt.Sprint(i)}
	}
	return ex, trueW, hashes
}

func TestTrainRecoversAKnownModel(t *testing.T) {
	ex, trueW, hashes := synthetic(20000, 1)
	fit, err := Train(ex, Config{Bits: 10, L2: 1e-6, Holdout: 0.2, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for j, h := range hashes {
		got := fit.Weights[textclass.Feature{Hash: h}.ID(10)]
		if math.Abs(got-trueW[j]) > 0.35 {
			t.Errorf("weight %d = %.3f, true %.3f", j, got, trueW[j])
		}
	}
	if math.Abs(fit.Bias+0.3) > 0.3 {
		t.Errorf("bias = %.3f, true -0.3", fit.Bias)
	}
	// The data come from a logistic model, so the fitted scores need no correction.
	if math.Abs(fit.PlattA-1) > 0.15 || math.Abs(fit.PlattB) > 0.15 {
		t.Errorf("Platt = (%.3f, %.3f), want about (1, 0)", fit.PlattA, fit.PlattB)
	}
	if n := len(fit.Calibration); n < 3000 || n > 5000 {
		t.Errorf("%d calibration examples, want about 20%% of 20000", n)
	}
}

func TestTrainIsDeterministic(t *testing.T) {
	ex, _, _ := synthetic(3000, 2)
	for _, folds := range []int{0, 3} {
		t.Run(fmt.Sprint("Folds", folds), func(t *testing.T) {
			cfg := Config{Bits: 9, L2: 1e-3, Folds: folds, Holdout: 0.25, Seed: 5}
			a, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(a.Weights, b.Weights) || a.Bias != b.Bias || a.PlattA != b.PlattA || a.PlattB != b.PlattB {
				t.Fatal("two fits on the same data differ")
			}
			cfg.Seed = 6
			c, err := Train(ex, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if folds < 2 && slices.Equal(a.Weights, c.Weights) {
				t.Fatal("another seed gave the same held-out split")
			}
		})
	}
}

func TestTrainFoldsCalibrateOnEveryExample(t *testing.T) {
	ex, _, _ := synthetic(2000, 4)
	fit, err := Train(ex, Config{Bits: 9, L2: 1e-4, Folds: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(fit.Calibration) != len(ex) {
		t.Fatalf("%d out-of-fold scores for %d examples", len(fit.Calibration), len(ex))
	}
}

// TestObjectiveGradient compares the analytic gradient with central differences.
func TestObjectiveGradient(t *testing.T) {
	ex, _, _ := synthetic(300, 9)
	ex[0].Weight = 3
	d := compile(ex, 8)
	use := make([]bool, len(ex))
	for i := range use {
		use[i] = i%5 != 0
	}
	rng := rand.New(rand.NewPCG(1, 1))
	w := make([]float64, len(d.slots))
	for j := range w {
		w[j] = rng.NormFloat64()
	}
	b, l2 := 0.2, 0.01
	g := make([]float64, len(w))
	_, gb := d.objective(use, w, b, l2, g)
	scratch := make([]float64, len(w))
	const eps = 1e-6
	for j := range w {
		w[j] += eps
		fp, _ := d.objective(use, w, b, l2, scratch)
		w[j] -= 2 * eps
		fm, _ := d.objective(use, w, b, l2, scratch)
		w[j] += eps
		if num := (fp - fm) / (2 * eps); math.Abs(num-g[j]) > 1e-6 {
			t.Fatalf("d/dw[%d] = %v, numerically %v", j, g[j], num)
		}
	}
	fp, _ := d.objective(use, w, b+eps, l2, scratch)
	fm, _ := d.objective(use, w, b-eps, l2, scratch)
	if num := (fp - fm) / (2 * eps); math.Abs(num-gb) > 1e-6 {
		t.Fatalf("d/db = %v, numerically %v", gb, num)
	}
}

func TestPlatt(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	var s []Scored
	for range 20000 {
		z := rng.NormFloat64() * 3
		s = append(s, Scored{Z: z, Label: rng.Float64() < Sigmoid(0.5*z-1), Weight: 1})
	}
	a, b := Platt(s)
	if math.Abs(a-0.5) > 0.05 || math.Abs(b+1) > 0.08 {
		t.Fatalf("Platt = (%.3f, %.3f), want about (0.5, -1)", a, b)
	}
	// Tiny weights (sources weighed to a budget) must not change the fit.
	for i := range s {
		s[i].Weight = 1e-5
	}
	if a2, b2 := Platt(s); math.Abs(a2-a) > 1e-3 || math.Abs(b2-b) > 1e-3 {
		t.Fatalf("Platt with weights 1e-5 = (%.3f, %.3f), with 1 = (%.3f, %.3f)", a2, b2, a, b)
	}
	if a, b := Platt(nil); a != 1 || b != 0 {
		t.Fatalf("Platt(nil) = (%v, %v), want (1, 0)", a, b)
	}
}

func TestTrainRejects(t *testing.T) {
	ex, _, _ := synthetic(50, 1)
	onlyPos := []Example{{Label: true, Weight: 1}, {Label: true, Weight: 1}}
	zero := append([]Example{{Label: true, Weight: 0}}, ex...)
	for _, tc := range []struct {
		name string
		ex   []Example
		cfg  Config
	}{
		{"Bits", ex, Config{Bits: 4, Holdout: 0.2}},
		{"NegativeL2", ex, Config{Bits: 10, L2: -1, Holdout: 0.2}},
		{"NoHoldout", ex, Config{Bits: 10}},
		{"OneClass", onlyPos, Config{Bits: 10, Holdout: 0.5}},
		{"ZeroWeight", zero, Config{Bits: 10, Holdout: 0.2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Train(tc.ex, tc.cfg); err == nil {
				t.Fatal("Train accepted it")
			}
		})
	}
}

func TestHeadQuantizesTheFit(t *testing.T) {
	ex, _, _ := synthetic(2000, 3)
	fit, err := Train(ex, Config{Bits: 10, L2: 1e-4, Holdout: 0.2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	h, err := fit.Head("x")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex[:200] {
		if d := math.Abs(h.Probability(h.Raw(e.Features)) - fit.Probability(fit.Raw(e.Features))); d > 1e-3 {
			t.Fatalf("quantized probability differs by %v", d)
		}
	}
}

// TestUnitPinned pins Unit to the values the shipped models' splits were made with: a change
// to it would change which examples calibrate, and so every retrained model's bytes.
func TestUnitPinned(t *testing.T) {
	for _, tc := range []struct {
		name  string
		parts []string
		want  float64
	}{
		{"Group", []string{"davidson/123"}, 0.034557983441759421},
		{"PrefixedGroup", []string{"mlptrain:", "davidson/123"}, 0.47055776157499174},
		{"PartsJoin", []string{"mlptrain:davidson", "/123"}, 0.47055776157499174},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Unit(12, tc.parts...); got != tc.want {
				t.Fatalf("Unit(12, %q) = %.17g, want %.17g", tc.parts, got, tc.want)
			}
		})
	}
	if unit(12, "davidson/123") != Unit(12, "davidson/123") {
		t.Fatal("unit and Unit differ")
	}
}
