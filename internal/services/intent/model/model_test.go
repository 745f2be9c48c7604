package model

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/modelfile"
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
		{"Empty", "  \t ", []string{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Normalize(tc.in); !slices.Equal(got, tc.want) {
				t.Fatalf("Normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
	t.Run("AtMostMaxWords", func(t *testing.T) {
		if got := len(Normalize(strings.Repeat("w ", 3*MaxWords))); got != MaxWords {
			t.Fatalf("%d words, want %d", got, MaxWords)
		}
	})
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want int // code points kept
	}{
		{"Short", "book a flight", 13},
		{"ExactlyWindow", strings.Repeat("a", Window), Window},
		{"SpaceAfterWindow", strings.Repeat("a", Window) + " tail", Window},
		{"BackToWordBoundary", strings.Repeat("a", 10) + " " + strings.Repeat("b", 2*Window), 10},
		{"OneLongWord", strings.Repeat("é", 3*Window), Window},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Clip(tc.in)
			if n := utf8.RuneCountInString(got); n != tc.want {
				t.Fatalf("kept %d code points, want %d", n, tc.want)
			}
			if !strings.HasPrefix(tc.in, got) || !utf8.ValidString(got) {
				t.Fatal("Clip did not keep a valid prefix")
			}
		})
	}
}

func TestExtract(t *testing.T) {
	ctx := context.Background()
	spec := DefaultSpec
	get := func(t *testing.T, s string) []Entry {
		t.Helper()
		x, err := spec.Extract(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	t.Run("SortedUnitLength", func(t *testing.T) {
		x := get(t, "Please book me a flight to Boston, a flight!")
		var sum float64
		for i, e := range x {
			if i > 0 && e.Feature <= x[i-1].Feature {
				t.Fatal("features not strictly increasing")
			}
			if e.Feature >= 1<<spec.Bits || e.Value <= 0 {
				t.Fatalf("bad entry %+v", e)
			}
			sum += float64(e.Value) * float64(e.Value)
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("squared length %v, want 1", sum)
		}
	})
	t.Run("CaseAndPunctuationFolded", func(t *testing.T) {
		if !slices.Equal(get(t, "Book a FLIGHT!"), get(t, "book a flight")) {
			t.Fatal("case or punctuation changes the features")
		}
	})
	t.Run("WordOrderMatters", func(t *testing.T) {
		if slices.Equal(get(t, "dog bites man"), get(t, "man bites dog")) {
			t.Fatal("bigrams do not distinguish word order")
		}
	})
	t.Run("Empty", func(t *testing.T) {
		if x := get(t, " ?! "); len(x) != 0 {
			t.Fatalf("%d features for no words", len(x))
		}
	})
	t.Run("OnlyTheWindowCounts", func(t *testing.T) {
		head := strings.Repeat("where is my card ", Window/17+1)
		if !slices.Equal(get(t, head+"transfer money"), get(t, head+"play jazz")) {
			t.Fatal("text after the window changed the features")
		}
	})
	t.Run("Cancelled", func(t *testing.T) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		if _, err := spec.Extract(c, "a b c"); !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
	})
}

// tiny is a two-intent model with an out-of-scope class over a hand-made feature space: the
// word "hello" means greet, "bye" means bye, "weather" is out of scope.
func tiny(t *testing.T) *Model {
	t.Helper()
	spec := Spec{Bits: 16}
	feat := func(w string) uint32 {
		x, err := spec.Extract(context.Background(), w)
		if err != nil || len(x) != 1 {
			t.Fatalf("features of %q: %v %v", w, x, err)
		}
		return x[0].Feature
	}
	words := []string{"hello", "bye", "weather"}
	slices.SortFunc(words, func(a, b string) int { return int(feat(a)) - int(feat(b)) })
	m := &Model{Catalog: "test", Spec: spec, Intents: []string{"greet", "bye"}, OutOfScope: true,
		Threshold: 0.5, Hidden: 3}
	emb := make([]float32, 0, 9)
	for _, w := range words {
		m.Features = append(m.Features, feat(w))
		row := map[string][]float32{"hello": {4, 0, 0}, "bye": {0, 4, 0}, "weather": {0, 0, 4}}[w]
		emb = append(emb, row...)
	}
	m.Emb, m.EmbScale = QuantizeRows(emb, 3, EmbLevels)
	m.HiddenBias = []float32{0, 0, 0}
	m.Out, m.OutScale = QuantizeRows([]float32{2, 0, 0, 0, 2, 0, 0, 0, 2}, 3, OutLevels)
	m.OutBias = []float32{0, 0, 0}
	if err := m.check(); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestPredict(t *testing.T) {
	m := tiny(t)
	for _, tc := range []struct {
		name, text string
		intent     int
	}{
		{"Greet", "hello", 0},
		{"Bye", "bye", 1},
		{"OutOfScopeClassWins", "weather", None},
		{"UnknownWordsBelowThreshold", "zebra", None},
		{"Empty", "", None},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := m.Predict(context.Background(), tc.text, 2)
			if err != nil {
				t.Fatal(err)
			}
			if p.Intent != tc.intent {
				t.Fatalf("intent %d, want %d (%+v)", p.Intent, tc.intent, p)
			}
			if len(p.Ranked) != 2 || p.Ranked[0].Confidence < p.Ranked[1].Confidence {
				t.Fatalf("ranking %+v", p.Ranked)
			}
			want := p.Ranked[0].Confidence
			if p.Intent == None {
				want = 1 - want
			} else if p.Ranked[0].Intent != p.Intent {
				t.Fatal("the answered intent is not ranked first")
			}
			if p.Confidence != want {
				t.Fatalf("confidence %v, want %v", p.Confidence, want)
			}
		})
	}
	t.Run("ProbabilitiesSumToOne", func(t *testing.T) {
		x, _ := m.Spec.Extract(context.Background(), "hello bye")
		var sum float64
		for _, p := range m.Probabilities(x) {
			sum += p
		}
		if math.Abs(sum-1) > 1e-9 {
			t.Fatalf("sum %v", sum)
		}
	})
}

// Decide ranks like a stable sort by falling probability, for any k.
func TestDecideRanking(t *testing.T) {
	m := &Model{Intents: make([]string, 6), Threshold: 0.2}
	for _, probs := range [][]float64{
		{0.1, 0.3, 0.1, 0.3, 0.05, 0.15},
		{0.5, 0.1, 0.1, 0.1, 0.1, 0.1},
		{0, 0, 0, 0, 0, 1},
		{1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6, 1.0 / 6},
	} {
		want := make([]Scored, len(probs))
		for i, p := range probs {
			want[i] = Scored{i, p}
		}
		slices.SortStableFunc(want, func(a, b Scored) int {
			switch {
			case a.Confidence > b.Confidence:
				return -1
			case a.Confidence < b.Confidence:
				return 1
			}
			return 0
		})
		for k := 1; k <= 7; k++ {
			p := m.Decide(probs, k)
			if !slices.Equal(p.Ranked, want[:min(k, 6)]) {
				t.Fatalf("Decide(%v, %d).Ranked = %v, want %v", probs, k, p.Ranked, want[:min(k, 6)])
			}
			if wantIntent := want[0].Intent; (want[0].Confidence >= 0.2) != (p.Intent == wantIntent) {
				t.Fatalf("Decide(%v): intent %d", probs, p.Intent)
			}
		}
	}
}

func TestEncodeDecode(t *testing.T) {
	m := tiny(t)
	b1, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := tiny(t).Encode()
	if !bytes.Equal(b1, b2) {
		t.Fatal("Encode is not deterministic")
	}
	got, err := Decode(b1)
	if err != nil {
		t.Fatal(err)
	}
	if got.Catalog != m.Catalog || got.Spec != m.Spec || !slices.Equal(got.Intents, m.Intents) ||
		got.Threshold != m.Threshold || got.Hidden != m.Hidden || !got.OutOfScope ||
		!slices.Equal(got.Features, m.Features) || !slices.Equal(got.Weights(), m.Emb) ||
		!slices.Equal(got.EmbScale, m.EmbScale) || !slices.Equal(got.Out, m.Out) ||
		!slices.Equal(got.OutScale, m.OutScale) || !slices.Equal(got.OutBias, m.OutBias) {
		t.Fatalf("round trip changed the model:\n got %+v\nwant %+v", got, m)
	}
	again, _ := got.Encode()
	if !bytes.Equal(again, b1) {
		t.Fatal("Encode(Decode(b)) != b")
	}
}

func TestDecodeRejectsDamage(t *testing.T) {
	good, err := tiny(t).Encode()
	if err != nil {
		t.Fatal(err)
	}
	unsorted := tiny(t)
	unsorted.Features[0], unsorted.Features[1] = unsorted.Features[1], unsorted.Features[0]
	if _, err := unsorted.Encode(); err == nil {
		t.Fatal("Encode accepted unsorted features")
	}
	// edit changes the model section and writes a well-formed file around it, so that the
	// model's own checks (not the container's digest) are what refuse it.
	edit := func(change func(body []byte) []byte) []byte {
		f, err := modelfile.Decode(good)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := f.Section(section)
		b, err := modelfile.Encode(f.ID, f.Meta, modelfile.Section{Name: section, Data: change(slices.Clone(body))})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"Empty", nil},
		{"WeightOutOfRange", edit(func(b []byte) []byte {
			at := bytes.Index(b, packNibbles(tiny(t).Emb))
			if at < 0 {
				t.Fatal("the packed weights are not in the file")
			}
			b[at] &^= 15 // a half-byte of 0 is the weight -8, outside -7..7
			return b
		})},
		{"NotAModel", []byte("hello")},
		{"Truncated", good[:len(good)/2]},
		{"TrailingBytes", edit(func(b []byte) []byte { return append(b, 0) })},
		{"ShortBody", edit(func(b []byte) []byte { return b[:20] })},
		{"OtherCatalog", edit(func(b []byte) []byte {
			return append([]byte{7, 'b', 'a', 'n', 'k', 'i', 'n', 'g'}, b[1+len(tiny(t).Catalog):]...)
		})},
		{"Gzip", gz(t, good)},
		{"OldFormat", append([]byte("SLI2"), good...)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.data); err == nil {
				t.Fatal("damaged model accepted")
			}
		})
	}
}

// TestValidNibbles checks the eight-bytes-at-a-time test against a plain one, with a zero
// half-byte at every position of packings of every length up to 40 values.
func TestValidNibbles(t *testing.T) {
	for n := range 41 {
		ws := make([]int8, n)
		for i := range ws {
			ws[i] = int8(i%15) - 7
		}
		good := packNibbles(ws)
		if !validNibbles(good, n) {
			t.Fatalf("n=%d: valid packing refused", n)
		}
		if n > 0 && validNibbles(good[:len(good)-1], n) {
			t.Fatalf("n=%d: short packing accepted", n)
		}
		for k := range n {
			bad := slices.Clone(good)
			bad[k/2] &^= 15 << (4 * (k % 2))
			if validNibbles(bad, n) {
				t.Fatalf("n=%d: zero half-byte %d accepted", n, k)
			}
		}
	}
}

func TestQuantizeRows(t *testing.T) {
	q, s := QuantizeRows([]float32{0.6, -1, 0.25, 0, 0, 0}, 3, EmbLevels)
	if !slices.Equal(q, []int8{4, -7, 2, 0, 0, 0}) || s[1] != 0 || math.Abs(float64(s[0])-1.0/7) > 1e-7 {
		t.Fatalf("q = %v, scales = %v", q, s)
	}
}

func gz(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	w := gzip.NewWriter(&out)
	if _, err := w.Write(b); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}
