package main

import (
	"math"
	"reflect"
	"testing"
)

func TestWordCounts(t *testing.T) {
	c := wordCounts([]string{"hola", "hola", "sí"})
	// 10 letters; " hola " twice: each padded n-gram twice, the word's end boundary once a word.
	for g, want := range map[string]float64{" hola": 0.2, "hola ": 0.2, "o": 0.2, " ": 0.3, "sí ": 0.1, " h": 0.2} {
		if math.Abs(c[g]-want) > 1e-12 {
			t.Errorf("count of %q = %v, want %v", g, c[g], want)
		}
	}
	if _, ok := c[" hola "]; ok {
		t.Error("an n-gram longer than model.MaxOrder was counted")
	}
}

func TestByFrequencyAndKeepGrams(t *testing.T) {
	if got := byFrequency([]string{"b", "a", "c", "a", "c", "a"}); !reflect.DeepEqual(got, []string{"a", "c", "b"}) {
		t.Errorf("byFrequency = %q", got)
	}
	keep := keepGrams([]string{"hello"})
	for _, g := range []string{" h", " hell", "hello", "ello ", "o "} {
		if !keep[g] {
			t.Errorf("keepGrams lacks %q", g)
		}
	}
	if keep["h"] || keep[" hello"] {
		t.Error("keepGrams holds a single character or a 6-gram")
	}
}

func TestTatoebaSplitIsStable(t *testing.T) {
	// One line in ten, by hash: the same line always goes the same way.
	first := map[string]bool{}
	held := 0
	for i := range 10000 {
		line := "sentence number " + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + string(rune('a'+i/676))
		first[line] = tatoebaHeldOut(line)
		if first[line] {
			held++
		}
	}
	for line, h := range first {
		if tatoebaHeldOut(line) != h {
			t.Fatalf("%q changed sides", line)
		}
	}
	if held < 800 || held > 1200 {
		t.Errorf("%d of 10000 lines held out, want about 1000", held)
	}
	dev := tatoebaDev("es", []string{"¡Hola, Juan!", "Gracias.", "123"})
	kinds := map[string]int{}
	for _, s := range dev {
		kinds[s.kind]++
	}
	if kinds["sentences"] != 2 || kinds["single-words"] != 2 || kinds["word-pairs"] != 1 {
		t.Errorf("tatoebaDev = %+v", dev)
	}
}
