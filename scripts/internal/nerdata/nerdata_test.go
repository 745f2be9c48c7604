package nerdata

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestPersonTag(t *testing.T) {
	for _, tc := range []struct {
		tag           string
		person, begin bool
	}{
		{"B-PER", true, true}, {"I-PER", true, false}, {"B-PEr", true, true}, {"B-BER", true, true},
		{"B-PESSOA", true, true}, {"I-PESSOA", true, false}, {"B-LOC", false, false}, {"O", false, false},
	} {
		if p, b := personTag(tc.tag); p != tc.person || b != tc.begin {
			t.Errorf("personTag(%q) = %v, %v", tc.tag, p, b)
		}
	}
}

func TestEuropeanaSplitAndExample(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// 50 sentences "Herr Müller, kam ." with Müller tagged (punctuation attached, as in the corpus).
	for range 50 {
		b.WriteString("Herr O\nMüller, B-PER\nkam O\n. O\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "enp_FR.bnf.bio"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	train, test, err := Europeana(dir, "fr")
	if err != nil {
		t.Fatal(err)
	}
	// 50 sentences in blocks of 8: 7 blocks, the last 7/5 = 1 held out.
	if len(train) != 6 || len(test) != 1 {
		t.Fatalf("split %d/%d blocks, want 6/1", len(train), len(test))
	}
	ex := Example(train[0])
	if len(ex.Names) != 8 || ex.Text[ex.Names[0].Start:ex.Names[0].End] != "Müller" {
		t.Fatalf("example %q names %v", ex.Text[:40], ex.Names)
	}
	if _, _, err := Europeana(dir, "xx"); err == nil {
		t.Fatal("unknown language accepted")
	}
}

func TestEuropeanaDev(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	// 100 numbered sentences: 13 blocks of 8 (the last of 4), 2 held out; of the 11 training
	// blocks, 2 more are the development set.
	for i := range 100 {
		fmt.Fprintf(&b, "Satz O\nN%d B-PER\n. O\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, "enp_NL.kb.bio"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	train, test, err := Europeana(dir, "nl")
	if err != nil {
		t.Fatal(err)
	}
	devTrain, dev, err := EuropeanaDev(dir, "nl")
	if err != nil {
		t.Fatal(err)
	}
	if len(train) != 11 || len(test) != 2 || len(devTrain) != 9 || len(dev) != 2 {
		t.Fatalf("blocks: train %d, test %d, dev train %d, dev %d; want 11, 2, 9, 2", len(train), len(test), len(devTrain), len(dev))
	}
	first := func(blocks [][]Sentence) string { return blocks[0][0][1].Text }
	if first(devTrain) != first(train) || first(dev) != first(train[9:]) {
		t.Fatalf("dev split does not cut the training blocks in order: %s %s", first(devTrain), first(dev))
	}
	if first(dev) == first(test) {
		t.Fatal("the development set overlaps the held-out blocks")
	}
}

func TestLeNERBr(t *testing.T) {
	dir := t.TempDir()
	data := "O O\nrelator O\nJOSÉ B-PESSOA\nDA I-PESSOA\nSILVA I-PESSOA\n. O\n\nOutra O\nfrase O\n\n"
	if err := os.WriteFile(filepath.Join(dir, "test.conll"), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	blocks, err := LeNERBr(dir, "test")
	if err != nil {
		t.Fatal(err)
	}
	ex := Example(blocks[0])
	if len(blocks) != 1 || len(ex.Names) != 1 || ex.Text[ex.Names[0].Start:ex.Names[0].End] != "JOSÉ DA SILVA" {
		t.Fatalf("blocks %d, example %q %v", len(blocks), ex.Text, ex.Names)
	}
}
