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

func TestReadConllAndEntities(t *testing.T) {
	dir := t.TempDir()
	// BTC-style: a handle split into "@" and its name, both tagged; an I tag after O starts a
	// name (conlleval); an empty token is skipped.
	btc := "RT\tO\n@\tB-PER\nNikoWavy\tB-PER\n:\tO\nVera\tB-PER\nWang\tI-PER\n\tO\nring\tO\n\n" +
		"ed\tI-PER\nsheeran\tI-PER\nand\tO\n#Mo\tB-PER\n"
	if err := os.WriteFile(filepath.Join(dir, "dev.conll"), []byte(btc), 0o644); err != nil {
		t.Fatal(err)
	}
	sents, err := BTC(dir, "dev")
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) != 2 || len(sents[0]) != 7 || len(sents[1]) != 4 {
		t.Fatalf("read %d sentences: %v", len(sents), sents)
	}
	if got, want := fmt.Sprint(Entities(sents[0])), "[{1 2} {2 3} {4 6}]"; got != want {
		t.Errorf("Entities = %s, want %s", got, want)
	}
	if got, want := fmt.Sprint(Entities(sents[1])), "[{0 2} {3 4}]"; got != want {
		t.Errorf("Entities = %s, want %s", got, want)
	}
	for i, want := range []bool{false, true, true, false, false, false, false} {
		if Handle(sents[0], i) != want {
			t.Errorf("Handle(%d) = %v", i, !want)
		}
	}
	if !Handle(sents[1], 3) {
		t.Error("hashtag not a handle")
	}
	if got, want := fmt.Sprint(Offsets(sents[1])), "[[0 2] [3 10] [11 14] [15 18]]"; got != want {
		t.Errorf("Offsets = %s, want %s", got, want)
	}
	tr := ForTraining(sents[0])
	var texts []string
	for _, tk := range tr {
		texts = append(texts, tk.Text)
	}
	if got := strings.Join(texts, " "); got != "RT @NikoWavy : Vera Wang ring" {
		t.Errorf("ForTraining text %q", got)
	}
	if got, want := fmt.Sprint(Entities(tr)), "[{3 5}]"; got != want {
		t.Errorf("ForTraining entities %s, want %s", got, want)
	}
}

func TestGermEval(t *testing.T) {
	dir := t.TempDir()
	tsv := "#\thttp://example.org [2009-10-17]\n1\tGoethes\tB-PERderiv\tO\n2\tFreund\tO\tO\n3\tJohann\tB-PER\tO\n" +
		"4\tEckermann\tI-PER\tO\n\n1\tDer\tO\tO\n2\tGoethe-Preis\tB-PERpart\tO\n"
	if err := os.WriteFile(filepath.Join(dir, "dev.tsv"), []byte(tsv), 0o644); err != nil {
		t.Fatal(err)
	}
	sents, err := GermEval(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(sents) != 2 {
		t.Fatalf("read %d sentences", len(sents))
	}
	if got, want := fmt.Sprint(Entities(sents[0])), "[{2 4}]"; got != want {
		t.Errorf("Entities = %s, want %s", got, want)
	}
	if len(Entities(sents[1])) != 0 {
		t.Error("PERpart read as a name")
	}
}

func TestFold(t *testing.T) {
	sents := make([]Sentence, 10)
	for i := range sents {
		sents[i] = Sentence{{Text: fmt.Sprint(i)}}
	}
	seen := map[string]int{}
	for k := range 3 {
		train, test := Fold(sents, k, 3)
		if len(train)+len(test) != 10 {
			t.Fatalf("fold %d: %d + %d sentences", k, len(train), len(test))
		}
		for _, s := range test {
			seen[s[0].Text]++
		}
	}
	if len(seen) != 10 {
		t.Fatalf("folds cover %d of 10 sentences", len(seen))
	}
	for _, tc := range []struct {
		in   string
		k, n int
		ok   bool
	}{{"1/5", 0, 5, true}, {"5/5", 4, 5, true}, {"0/5", 0, 0, false}, {"6/5", 0, 0, false}, {"1/1", 0, 0, false}, {"x", 0, 0, false}} {
		k, n, err := ParseFold(tc.in)
		if (err == nil) != tc.ok || k != tc.k || n != tc.n {
			t.Errorf("ParseFold(%q) = %d, %d, %v", tc.in, k, n, err)
		}
	}
}
