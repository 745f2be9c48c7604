package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

func TestEverydayWords(t *testing.T) {
	data := t.TempDir()
	dir := filepath.Join(data, "langid", "lingua-testdata", "sentences")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	es := strings.Join([]string{
		"Lo puse en una caja grande.", // caja: a name, in lower case twice
		"La caja estaba vacía.",
		"Hablé con Rosa y con rosa.", // rosa: once in lower case only
		"Vi a Marta.",                // marta: never in lower case
		"Dile a sam que sí, sam.",    // sam: one of chatNames
		"La mesa, la mesa.",          // mesa: no name
		"Caja Madrid y Caja Rural y caja y caja.",
		"Paz y Paz y Paz y Paz dijeron paz y paz.", // paz: more often capitalised mid-sentence
		"segunda mitad", "segunda vez",             // the second half of the file
	}, "\n")
	for _, lang := range everydayLanguages {
		text := ""
		if lang == "es" {
			text = es
		}
		if err := os.WriteFile(filepath.Join(dir, lang+".txt"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b := names.NewGazetteerBuilder()
	for _, w := range []string{"caja", "rosa", "marta", "sam", "paz", "segunda"} {
		b.Add(w, names.Given)
	}
	gaz := b.Build()
	cases := []struct {
		name string
		half bool
		want []string
	}{
		{"Whole", false, []string{"caja", "segunda"}},
		{"FirstHalf", true, []string{"caja"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := everydayWords(data, gaz, tc.half)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("everydayWords = %q, want %q", got, tc.want)
			}
		})
	}
}
