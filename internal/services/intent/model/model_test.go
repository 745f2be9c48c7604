package model

import (
	"bytes"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []string
	}{
		{"LowerAndPunctuation", "Hello, World!", []string{"hello", "world"}},
		{"Contraction", "Don't stop", []string{"dont", "stop"}},
		{"Digits", "wake me at 7:45", []string{"wake", "me", "at", "0", "00"}},
		{"FullWidth", "ＡＢＣ", []string{"abc"}},
		{"Empty", "  \t ", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); !slices.Equal(got, tc.want) {
				t.Fatalf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCounts(t *testing.T) {
	ctx := context.Background()
	t.Run("SameWordsSameFeatures", func(t *testing.T) {
		a, _ := Counts(ctx, "Book a FLIGHT!")
		b, _ := Counts(ctx, "book a flight")
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("%d vs %d features", len(a), len(b))
		}
		for f, c := range a {
			if b[f] != c {
				t.Fatalf("feature %d: %v vs %v", f, c, b[f])
			}
		}
	})
	t.Run("WordOrderMatters", func(t *testing.T) {
		a, _ := Counts(ctx, "dog bites man")
		b, _ := Counts(ctx, "man bites dog")
		same := true
		for f := range a {
			if _, ok := b[f]; !ok {
				same = false
			}
		}
		if same {
			t.Fatal("bigrams do not distinguish word order")
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := Counts(c, "a b c"); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v", err)
		}
	})
}

func tiny() *Model {
	return &Model{
		Catalog:     "test",
		Intents:     []string{"greet", "bye"},
		IDF:         map[uint32]float32{1: 1.5, 7: 2.5, 9: 3},
		DefaultIDF:  3,
		Temperature: 0.05,
		Threshold:   0.3,
		Prototypes: []Prototype{
			{Intent: 0, Features: []uint32{1, 7}, Weights: []float32{0.8, 0.6}},
			{Intent: 1, Features: []uint32{9}, Weights: []float32{1}},
		},
	}
}

func TestEncodeDecode(t *testing.T) {
	b1, err := tiny().Encode()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := tiny().Encode()
	if !bytes.Equal(b1, b2) {
		t.Fatal("Encode is not deterministic")
	}
	m, err := Decode(b1)
	if err != nil {
		t.Fatal(err)
	}
	if m.Catalog != "test" || !slices.Equal(m.Intents, []string{"greet", "bye"}) || m.Threshold != 0.3 || m.Temperature != 0.05 {
		t.Fatalf("header lost: %+v", m)
	}
	if math.Abs(float64(m.IDF[7]-2.5)) > 0.01 {
		t.Fatalf("IDF[7] = %v", m.IDF[7])
	}
	sims := m.similarities([]Entry{{1, 0.8}, {7, 0.6}})
	if math.Abs(sims[0]-1) > 0.01 || sims[1] != 0 {
		t.Fatalf("similarities = %v", sims)
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	good, _ := tiny().Encode()
	bad := tiny()
	bad.Prototypes[1].Intent = 5
	outOfRange, _ := bad.Encode()
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"Empty", nil},
		{"NotGzip", []byte("hello")},
		{"Truncated", good[:len(good)/2]},
		{"IntentOutOfRange", outOfRange},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.data); err == nil {
				t.Fatal("damaged model accepted")
			}
		})
	}
}

func TestDecide(t *testing.T) {
	m := tiny()
	for _, tc := range []struct {
		name   string
		sims   []float64
		intent int
		alts   int
	}{
		{"Match", []float64{0.9, 0.1}, 0, 1},
		{"OtherMatch", []float64{0.2, 0.5}, 1, 1},
		{"BelowThreshold", []float64{0.29, 0.1}, None, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := m.Decide(tc.sims, 3)
			if p.Intent != tc.intent || len(p.Alternatives) != tc.alts {
				t.Fatalf("prediction = %+v", p)
			}
			probs, none := m.Probabilities(tc.sims)
			total := none
			for _, q := range probs {
				total += q
			}
			if math.Abs(total-1) > 1e-9 {
				t.Fatalf("probabilities sum to %v", total)
			}
			if tc.intent == None && p.Confidence != none {
				t.Fatalf("null confidence %v, want P(none) %v", p.Confidence, none)
			}
		})
	}
}

func TestPredictLongText(t *testing.T) {
	m, err := Decode(mustEncode(t, tiny()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Predict(context.Background(), strings.Repeat("hello there ", 5000), 3); err != nil {
		t.Fatal(err)
	}
}

func mustEncode(t *testing.T, m *Model) []byte {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}
