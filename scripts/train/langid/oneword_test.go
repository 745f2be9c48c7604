package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

func TestOneWordCounts(t *testing.T) {
	n, total := oneWordCounts([]string{"Hola.", "¡Hola!", "Hola, Tom.", "Gracias.", "¿Qué?", "Buenos días.", "123"})
	if total != 4 || n["hola"] != 2 || n["gracias"] != 1 || n["qué"] != 1 || len(n) != 3 {
		t.Fatalf("got %v, %d; want hola 2, gracias 1, qué 1 of 4 lines", n, total)
	}
}

// TestOneWords: a word gets the difference between its share of one-word lines and what the
// language's other values give it, only when positive, under its own key; a word whose
// running-text score is already higher gets nothing.
func TestOneWords(t *testing.T) {
	cfg := defaultConfig()
	cfg.OneWeight, cfg.OneDiscount = 1, 0
	kept := []candidate{{gram: " ", lp: -1}, {gram: "a", lp: -0.1}, {gram: "b", lp: -5}}
	lp := lpOf(kept)
	counts := map[string]int{"bbbb": 3, "aa": 1}
	// bbbb: 3 of 4 lines, against its n-grams and its whole-word value of 2.
	got := oneWords(counts, 4, map[string]float64{" bbbb ": 2}, kept, cfg)
	want := math.Log(3.0/4) - (ngramLogProb("bbbb", lp, cfg) + 2)
	if v, ok := got[oneWordKey("bbbb")]; !ok || math.Abs(v-want) > 1e-9 {
		t.Errorf("bbbb: got %v (%v), want %v", v, ok, want)
	}
	if v, ok := got[oneWordKey("aa")]; !ok || v <= 0 {
		t.Errorf("aa, a quarter of the one-word lines: got %v (%v), want a value", v, ok)
	}
	// One line in 100,000 is rarer than running text makes "aa" (about e^-7.2).
	if v, ok := oneWords(counts, 100000, nil, kept, cfg)[oneWordKey("aa")]; ok {
		t.Errorf("aa is likelier in running text than alone, got %v", v)
	}
	if oneWordKey("x") != "\x01 x " {
		t.Errorf("oneWordKey(%q) = %q", "x", oneWordKey("x"))
	}
	cfg.OneDiscount = 1
	if v := oneWords(map[string]int{"bbbb": 1}, 4, nil, kept, cfg); len(v) != 0 {
		t.Errorf("a discount of 1 leaves single lines nothing, got %v", v)
	}
	cfg.OneWeight = 0
	if v := oneWords(counts, 4, nil, kept, cfg); v != nil {
		t.Errorf("weight 0: got %v", v)
	}
}

// TestSocialOneWord: the hand labels re-read the labelled lines from the data directory and
// every hash matches; skipped when the shared data is not beside the repository.
func TestSocialOneWord(t *testing.T) {
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, devset.Dir)); err != nil {
		t.Skipf("no shared data at %s", data)
	}
	t.Chdir("../../..") // the labels' path is relative to the repository root
	got, err := socialOneWord(data)
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for _, s := range got {
		n[s.lang]++
		if len(chatWords([]string{s.text})) != 1 {
			t.Errorf("a labelled line is not one word")
		}
	}
	if len(got) != 209 || n["en"] != 188 || n["pt"] != 10 {
		t.Errorf("%d labelled lines %v, want 209 (en 188, pt 10)", len(got), n)
	}
}

// TestChatbotTurns: ConvAbuse's training split gives English its one-word turns, counted as
// typed; skipped without the shared data.
func TestChatbotTurns(t *testing.T) {
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, "toxicity", "convabuse")); err != nil {
		t.Skipf("no shared data at %s", data)
	}
	n, total, err := chatbotTurns(data)
	if err != nil {
		t.Fatal(err)
	}
	if total != 907 || n["hi"] != 41 || n["yes"] != 223 {
		t.Errorf("%d turns, hi %d, yes %d; want 907, 41, 223", total, n["hi"], n["yes"])
	}
	sum := addCounts(map[string]int{"hi": 2, "hola": 1}, n)
	if sum["hi"] != 43 || sum["hola"] != 1 || sum["yes"] != 223 {
		t.Errorf("addCounts: hi %d hola %d yes %d", sum["hi"], sum["hola"], sum["yes"])
	}
}
