package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestClusterWords(t *testing.T) {
	got := clusterWords("RT @anna_b: Tomasz paid 30 € for 2x4 https://t.co/xyz #Winning, ok?")
	want := []string{"rt", "<handle>", "tomasz", "paid", "<num>", "for", "<code>", "<handle>", "ok"}
	if !slices.Equal(got, want) {
		t.Fatalf("clusterWords = %q, want %q", got, want)
	}
}

// TestSocialCorpus builds the social-media and GermEval training sentences from a small data
// directory: repeats, a GermEval fold left out, handles joined and never names.
func TestSocialCorpus(t *testing.T) {
	data := t.TempDir()
	write := func(path, content string) {
		p := filepath.Join(data, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ner/wnut17/train.conll", "ask\tO\ntomasz\tB-person\n\n")
	write("ner/broad-twitter-corpus/train.conll", "@\tB-PER\njb\tB-PER\nhi\tO\nAnna\tB-PER\n\n")
	var ge strings.Builder
	for i := range 10 {
		ge.WriteString("1\tSatz\tO\tO\n2\tN" + string(rune('a'+i)) + "\tB-PER\tO\n\n")
	}
	write("ner/germeval2014/dev.tsv", ge.String())
	exs, err := socialCorpus(data, options{socialRepeat: 2, germevalRepeat: 1, germevalFold: "1/5"})
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, ex := range exs {
		var ns []string
		for _, n := range ex.Names {
			ns = append(ns, ex.Text[n.Start:n.End])
		}
		texts = append(texts, ex.Text+" "+strings.Join(ns, "|"))
	}
	want := []string{"ask tomasz tomasz", "ask tomasz tomasz", "@jb hi Anna Anna", "@jb hi Anna Anna"}
	for i := range 8 {
		// GermEval less its first fifth (sentences Na and Nb).
		n := "N" + string(rune('c'+i))
		want = append(want, "Satz "+n+" "+n)
	}
	if !slices.Equal(texts, want) {
		t.Fatalf("examples = %q, want %q", texts, want)
	}
	if _, err := socialCorpus(data, options{germevalRepeat: 1, germevalFold: "6/5"}); err == nil {
		t.Fatal("fold 6/5 accepted")
	}
}
