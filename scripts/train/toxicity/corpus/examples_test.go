package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

func TestExpand(t *testing.T) {
	const file = `
@g = m:los chicos | f:las chicas
@x = a | b | c
== toxic insult insult
{g} son tont<os|as>.
== ok neutral cap=2
[uno|dos] {x}
== ok tie
{x} y {x}
`
	ex, err := Expand("es", file)
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, e := range ex {
		texts = append(texts, e.Text)
	}
	want := []string{"los chicos son tontos.", "las chicas son tontas."}
	if !slices.Equal(texts[:2], want) {
		t.Fatalf("gendered texts = %q, want %q", texts[:2], want)
	}
	if !ex[0].Toxic || !slices.Equal(ex[0].Labels, []string{Insult}) || ex[0].Group != "insult" || ex[0].Lang != "es" {
		t.Fatalf("example = %+v", ex[0])
	}
	if got := texts[4:]; !slices.Equal(got, []string{"a y a", "b y b", "c y c"}) {
		t.Fatalf("a repeated slot gave %q, want the same value twice", got)
	}
	if len(ex) != 7 || ex[2].Toxic {
		t.Fatalf("capped section gave %d examples (want 2 more, not toxic): %+v", len(ex)-5, ex[2:4])
	}
	again, err := Expand("es", file)
	if err != nil || !slices.EqualFunc(ex, again, func(a, b Example) bool { return a.Text == b.Text }) {
		t.Fatalf("expansion is not deterministic")
	}
}

func TestExpandPair(t *testing.T) {
	ex, err := Expand("en", "@adj- = vile\n@adj+ = kind\n== pair hate identity_hate\nthey are {adj?}.\n")
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) != 2 {
		t.Fatalf("got %d examples, want a toxic and a non-toxic one", len(ex))
	}
	if ex[0].Text != "they are vile." || !ex[0].Toxic || ex[0].Group != "hate" || !slices.Equal(ex[0].Labels, []string{IdentityHate}) {
		t.Errorf("toxic side = %+v", ex[0])
	}
	if ex[1].Text != "they are kind." || ex[1].Toxic || ex[1].Group != "hate_contrast" || len(ex[1].Labels) != 0 {
		t.Errorf("non-toxic side = %+v", ex[1])
	}
}

func TestExpandErrors(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"NoSection", "hello"},
		{"UnknownSlot", "== ok x\n{nope}"},
		{"Unclosed", "== ok x\n[a|b"},
		{"BadLabel", "== toxic x nonsense\na"},
		{"NoLabels", "== toxic x\na"},
		{"LabelsOnOK", "== ok x insult\na"},
		{"PolarOutsidePair", "@a- = x\n@a+ = y\n== toxic x insult\n{a?}"},
		{"PairWithoutPlus", "@a- = x\n== pair x insult\n{a?}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Expand("en", tc.file); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestOwn(t *testing.T) {
	ex, err := Own()
	if err != nil {
		t.Fatal(err)
	}
	langs := map[string][2]int{}
	for _, e := range ex {
		c := langs[e.Lang]
		if e.Toxic {
			c[1]++
		} else {
			c[0]++
		}
		langs[e.Lang] = c
	}
	for l, c := range langs {
		if c[0] < 50 || c[1] < 50 {
			t.Errorf("%s: %d non-toxic and %d toxic examples; want at least 50 of each", l, c[0], c[1])
		}
	}
}

// TestOwnAvoidsHeldout keeps the hand-written training examples apart from our held-out set:
// no example may share a run of six words with a held-out case.
func TestOwnAvoidsHeldout(t *testing.T) {
	const n = 6
	b, err := os.ReadFile("../../../../internal/services/toxicity/testdata/heldout.tsv")
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]string{}
	for _, line := range strings.Split(string(b), "\n") {
		f := strings.Split(line, "\t")
		if len(f) != 5 || strings.HasPrefix(line, "#") {
			continue
		}
		for _, g := range wordRuns(f[4], n) {
			held[g] = f[4]
		}
	}
	if len(held) == 0 {
		t.Fatal("no held-out cases read")
	}
	ex, err := Own()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex {
		for _, g := range wordRuns(e.Text, n) {
			if h, ok := held[g]; ok {
				t.Errorf("training example %q shares %q with held-out case %q", e.Text, g, h)
				break
			}
		}
	}
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

// TestOwnAvoidsHateCheck keeps the hand-written training examples apart from the HateCheck and
// Multilingual HateCheck suites the model is evaluated on: no example may share a run of six
// words with one of their test cases. It needs the data sets (-data's default directory) and
// is skipped without them.
func TestOwnAvoidsHateCheck(t *testing.T) {
	const n = 6
	data := evalkit.DefaultDataDir()
	if _, err := os.Stat(filepath.Join(data, "toxicity", "hatecheck")); err != nil {
		t.Skipf("HateCheck data not found under %s", data)
	}
	suite, err := HateCheck(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range MHCLanguages {
		ex, err := MHC(data, l.Code)
		if err != nil {
			t.Fatal(err)
		}
		suite = append(suite, ex...)
	}
	cases := map[string]string{}
	for _, e := range suite {
		for _, g := range wordRuns(e.Text, n) {
			cases[g] = e.Text
		}
	}
	ex, err := Own()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ex {
		for _, g := range wordRuns(e.Text, n) {
			if c, ok := cases[g]; ok {
				t.Errorf("%s training example %q shares %q with test case %q", e.Lang, e.Text, g, c)
				break
			}
		}
	}
}
