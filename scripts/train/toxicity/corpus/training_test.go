package corpus

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// TestTrainingLeavesOutDevSets checks that no text of a set settings are chosen on (ToLD-Br
// validation, ConvAbuse valid, the GermEval dev tenth) or of a reporting set (ToxiGen) is
// trained on, unless the same text also occurs in a training split. It needs the data sets and
// is skipped without them.
func TestTrainingLeavesOutDevSets(t *testing.T) {
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, "toxicity", "told-br-train")); err != nil {
		t.Skipf("data not found under %s", data)
	}
	docs, err := Training(data)
	if err != nil {
		t.Fatal(err)
	}
	trained := map[string]bool{}
	sources := map[string]bool{}
	for _, d := range docs {
		trained[d.Source+"\x00"+d.Text] = true
		sources[d.Source] = true
		if d.Source == "ofensabr" {
			t.Fatal("OfensaBR (model-made labels) is trained on")
		}
	}
	for _, s := range []string{"toldbr", "convabuse", "toxicspans", "tatoeba"} {
		if !sources[s] {
			t.Errorf("no example of %s is trained on", s)
		}
	}
	// Texts that also occur in a training split (ToLD-Br has 27 in both) may be trained on.
	inTrain := map[string]bool{}
	tt, err := ToLDBr(data, "train")
	if err != nil {
		t.Fatal(err)
	}
	ct, err := ConvAbuse(data, "train")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range append(tt, ct...) {
		inTrain[e.Source+"\x00"+e.Text] = true
	}
	tv, err := ToLDBr(data, "validation")
	if err != nil {
		t.Fatal(err)
	}
	cv, err := ConvAbuse(data, "valid")
	if err != nil {
		t.Fatal(err)
	}
	ge, err := GermEval(data, "train")
	if err != nil {
		t.Fatal(err)
	}
	held := append(tv, cv...)
	for _, e := range ge {
		if GermEvalDev(e) {
			held = append(held, e)
		}
	}
	for _, e := range held {
		k := e.Source + "\x00" + e.Text
		if trained[k] && !inTrain[k] {
			t.Errorf("%s dev text is trained on", e.Source)
		}
	}
	tg, err := ToxiGen(data)
	if err != nil {
		t.Fatal(err)
	}
	all := map[string]bool{}
	for _, d := range docs {
		all[d.Text] = true
	}
	for _, e := range tg {
		if all[e.Text] {
			t.Errorf("a ToxiGen sentence is trained on")
		}
	}
}
