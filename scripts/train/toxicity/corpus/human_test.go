package corpus

import (
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeFile writes content to data/parts..., creating the directories.
func writeFile(t *testing.T, content string, parts ...string) {
	t.Helper()
	p := filepath.Join(parts...)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestToxicSpans checks the reading of Toxic Spans: a post most of its raters called "not toxic"
// is left out, a label needs two raters, "Other Toxicity" gives none, repeated posts are read
// once.
func TestToxicSpans(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "toxicity", "toxic-spans")
	writeFile(t, "comment_id,comment_text\n1,you are an idiot\n2,borderline post\n3,you are an idiot\n4,they will burn\n", dir, "comments.csv")
	writeFile(t, "annotation,comment_id,worker,country,all toxic,not toxic\n"+
		"10,1,a,USA,False,False\n11,1,b,USA,False,False\n12,1,c,USA,False,True\n"+
		"20,2,a,USA,False,True\n21,2,b,USA,False,True\n22,2,c,USA,False,False\n"+
		"30,3,a,USA,False,False\n"+
		"40,4,a,USA,False,False\n41,4,b,USA,False,False\n", dir, "annotations.csv")
	writeFile(t, "annotation,type,start,end\n"+
		"10,Insult,12,17\n11,Insult,12,17\n11,Threat,0,3\n"+
		"40,Other Toxicity,0,4\n41,Other Toxicity,0,4\n", dir, "spans.csv")
	got, err := ToxicSpans(data)
	if err != nil {
		t.Fatal(err)
	}
	want := []Example{
		{Text: "you are an idiot", Toxic: true, Labels: []string{Insult}, Lang: "en", Source: "toxicspans"},
		{Text: "they will burn", Toxic: true, Lang: "en", Source: "toxicspans"},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestToLDBrAndConvAbuse(t *testing.T) {
	data := t.TempDir()
	writeFile(t, "text,toxic\nola @user,0\n\"vai se foder, otario\",1\n", data, "toxicity", "told-br-train", "ptbr_train_2annotator.csv")
	writeFile(t, "text,toxic\nola,2\n", data, "toxicity", "told-br-train", "ptbr_validation_2annotator.csv")
	got, err := ToLDBr(data, "train")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Toxic || !got[1].Toxic || got[1].Text != "vai se foder, otario" {
		t.Fatalf("train: %v", got)
	}
	if _, err := ToLDBr(data, "validation"); err == nil {
		t.Fatal("toxic = 2 accepted")
	}
	if _, err := ToLDBr(data, "test"); err == nil {
		t.Fatal("the test split was read")
	}
	writeFile(t, `{"split": "train", "text": "hi", "label": "not_abusive"}
{"split": "valid", "text": "you are stupid", "label": "abusive"}
{"split": "train", "text": "shut up bitch", "label": "abusive"}
`, data, "toxicity", "convabuse", "convabuse_majority.jsonl")
	ca, err := ConvAbuse(data, "train")
	if err != nil {
		t.Fatal(err)
	}
	if len(ca) != 2 || ca[0].Toxic || !ca[1].Toxic || ca[1].Text != "shut up bitch" {
		t.Fatalf("train: %v", ca)
	}
}

// TestTatoebaSplit checks that the Tatoeba sentences trained on and those TatoebaDev returns
// are disjoint, and that the choice does not depend on the order of the file.
func TestTatoebaSplit(t *testing.T) {
	lines := make([]string, 0, TatoebaPerLanguage+500)
	for i := range TatoebaPerLanguage + 500 {
		lines = append(lines, fmt.Sprintf("Sentence number %d.", i))
	}
	write := func(data string, lines []string) {
		for _, l := range BackgroundLanguages {
			p := filepath.Join(data, "unlabeled", "tatoeba", l+".txt.gz")
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			f, err := os.Create(p)
			if err != nil {
				t.Fatal(err)
			}
			zw := gzip.NewWriter(f)
			if _, err := zw.Write([]byte(strings.Join(lines, "\n"))); err != nil {
				t.Fatal(err)
			}
			if err := zw.Close(); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	a, b := t.TempDir(), t.TempDir()
	write(a, lines)
	reversed := slices.Clone(lines)
	slices.Reverse(reversed)
	write(b, reversed)
	trainA, err := Tatoeba(a)
	if err != nil {
		t.Fatal(err)
	}
	trainB, err := Tatoeba(b)
	if err != nil {
		t.Fatal(err)
	}
	if len(trainA) != TatoebaPerLanguage*len(BackgroundLanguages) || fmt.Sprint(trainA) != fmt.Sprint(trainB) {
		t.Fatalf("%d sentences; same choice for both orders: %v", len(trainA), fmt.Sprint(trainA) == fmt.Sprint(trainB))
	}
	dev, err := TatoebaDev(a, "it", 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(dev) != 500 {
		t.Fatalf("dev has %d sentences, want the 500 left", len(dev))
	}
	trained := map[string]bool{}
	for _, e := range trainA {
		trained[e.Text] = true
	}
	for _, e := range dev {
		if trained[e.Text] {
			t.Fatalf("%q is trained on and in dev", e.Text)
		}
	}
}
