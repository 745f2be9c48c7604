package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestChatPhrasesAvoidTheHeldOutSet keeps the training phrases apart from the service's
// held-out set: no training phrase may contain a held-out text of the same language (as a run
// of whole words), so the held-out figures never measure a phrase the model was given.
func TestChatPhrasesAvoidTheHeldOutSet(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "..", "..", "internal", "services", "langid", "testdata", "heldout.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	held := map[string][]string{} // language -> texts as " w1 w2 "
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) == 3 {
			held[p[0]] = append(held[p[0]], " "+strings.Join(chatWords([]string{p[2]}), " ")+" ")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	langs := 0
	for lang, texts := range held {
		phrases := chatPhrases(lang)
		if len(phrases) > 0 {
			langs++
		}
		for _, p := range phrases {
			words := " " + strings.Join(chatWords([]string{p}), " ") + " "
			for _, h := range texts {
				if strings.Contains(words, h) {
					t.Errorf("%s: training phrase %q contains held-out text %q", lang, p, strings.TrimSpace(h))
				}
			}
		}
	}
	if langs < 20 {
		t.Errorf("chat phrases for only %d of the held-out languages", langs)
	}
}

func TestAddChat(t *testing.T) {
	counts := map[string]float64{}
	addChat(counts, "it", 1)
	if counts[" cia"] <= 0 || counts["iao "] <= 0 || counts[" ciao "] != 0 || counts[" "] <= 0 {
		t.Fatalf("counts lack the padded n-grams of \"ciao\" or hold a 6-gram: %v", len(counts))
	}
	letters := 0.0
	for g, c := range counts {
		if len([]rune(g)) == 1 && g != " " {
			letters += c
		}
	}
	if letters < 0.999 || letters > 1.001 {
		t.Fatalf("letters add up to %v, want the weight 1", letters)
	}
}

func TestSimplifiedChinese(t *testing.T) {
	zh := map[string]float64{"國": 0.6, "的": 0.3, "們": 0.1}
	ja := map[string]float64{"国": 0.1, "駅": 0.1, "の": 0.8}
	got := simplifiedChinese(zh, ja)
	// 国 (GB2312) takes twice its Japanese share, 赢 (GB2312, in neither table) rareHanzi;
	// 駅 and の (not hanzi of GB2312) get nothing.
	if got["国"] <= 0 || got["赢"] <= 0 || got["赢"] >= got["国"] || got["駅"] != 0 || got["の"] != 0 {
		t.Fatalf("got 国 %v, 赢 %v, 駅 %v, の %v", got["国"], got["赢"], got["駅"], got["の"])
	}
	if r := got["國"] / got["国"]; r < 2.99 || r > 3.01 {
		t.Fatalf("國/国 = %v, want 0.6/0.2", r)
	}
	if r := got["們"] / got["赢"]; r < 0.99e4 || r > 1.01e4 {
		t.Fatalf("們/赢 = %v, want 0.1/rareHanzi", r)
	}
	sum := 0.0
	for _, p := range got {
		sum += p
	}
	if sum < 0.999 || sum > 1.001 {
		t.Fatalf("frequencies sum to %v", sum)
	}
}
