package corpus

import (
	"slices"
	"testing"
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

func TestExpandErrors(t *testing.T) {
	for _, tc := range []struct{ name, file string }{
		{"NoSection", "hello"},
		{"UnknownSlot", "== ok x\n{nope}"},
		{"Unclosed", "== ok x\n[a|b"},
		{"BadLabel", "== toxic x nonsense\na"},
		{"NoLabels", "== toxic x\na"},
		{"LabelsOnOK", "== ok x insult\na"},
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
