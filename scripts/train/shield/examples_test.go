package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// TestHandwrittenMore checks that the examples of examples/more/ go to budgets of their own,
// each of its languages with both attacks and harmless texts, and never into the other sources
// (whose weights a default rebuild must keep).
func TestHandwrittenMore(t *testing.T) {
	hand, err := handwritten()
	if err != nil {
		t.Fatal(err)
	}
	attacks, benign := map[string]int{}, map[string]int{}
	for _, d := range hand["hand/attack-more"] {
		if !d.Attack || len(d.Labels) == 0 || !strings.HasPrefix(d.ID, "more/") {
			t.Errorf("hand/attack-more: %s is not a labelled attack of examples/more/: %+v", d.ID, d)
		}
		attacks[d.Lang]++
	}
	for _, d := range hand["hand/benign-more"] {
		if d.Attack || !strings.HasPrefix(d.ID, "more/") {
			t.Errorf("hand/benign-more: %s is not a harmless text of examples/more/", d.ID)
		}
		benign[d.Lang]++
	}
	for _, lang := range []string{"th", "ko", "zh", "ja", "id", "vi", "bn", "ru", "tr", "ar"} {
		if attacks[lang] < 30 || benign[lang] < 30 {
			t.Errorf("%s: %d attacks and %d harmless texts, want at least 30 of each", lang, attacks[lang], benign[lang])
		}
	}
	for name, ds := range hand {
		if strings.HasSuffix(name, "-more") || strings.HasSuffix(name, "-extra") || strings.HasSuffix(name, "-r10ml") || strings.HasSuffix(name, "-r13ml") {
			continue // the languages beyond the seven have budgets of their own
		}
		for _, d := range ds {
			if strings.HasPrefix(d.ID, "more/") || !slices.Contains([]string{"de", "en", "es", "fr", "it", "nl", "pt"}, d.Lang) {
				t.Errorf("%s holds %s (language %s)", name, d.ID, d.Lang)
			}
		}
	}
}

// TestHandwrittenExtra checks that the examples of examples/extra/ go to budgets of their own:
// short harmless requests in each of the 17 languages, harmless documents, and attacks hidden
// in them (labelled, with the attack's place recorded), never into the other sources.
func TestHandwrittenExtra(t *testing.T) {
	hand, err := handwritten()
	if err != nil {
		t.Fatal(err)
	}
	short := map[string]int{}
	for _, d := range hand["hand/benign-extra"] {
		if d.Attack || !strings.HasPrefix(d.ID, "extra/") || d.Kind != "short" {
			t.Errorf("hand/benign-extra: %s is not a short harmless text of examples/extra/: %+v", d.ID, d)
		}
		short[d.Lang]++
	}
	for _, lang := range []string{"ar", "bn", "de", "en", "es", "fr", "id", "it", "ja", "ko", "nl", "pt", "ru", "th", "tr", "vi", "zh"} {
		if short[lang] < 50 {
			t.Errorf("%s: %d short harmless texts, want at least 50", lang, short[lang])
		}
	}
	docs := map[string]int{}
	for _, d := range hand["hand/context-extra"] {
		if d.Attack || !strings.HasPrefix(d.ID, "extra/") {
			t.Errorf("hand/context-extra: %s is not a harmless document of examples/extra/", d.ID)
		}
		docs[d.Lang]++
	}
	if docs["en"] < 20 || docs["it"] < 12 || docs["pt"] < 12 {
		t.Errorf("documents per language %v, want at least 20 in English and 12 in Italian and Portuguese", docs)
	}
	injected := map[string]int{}
	for _, d := range hand["hand/injected-extra"] {
		if !d.Attack || d.Inject == "" || !strings.Contains(d.Text, d.Inject) || !slices.Contains(d.Labels, shielddata.IndirectInjection) {
			t.Errorf("hand/injected-extra: %s is not a labelled document with an attack inside: %+v", d.ID, d)
		}
		injected[d.Lang]++
	}
	if injected["en"] == 0 || injected["it"] == 0 || injected["pt"] == 0 {
		t.Errorf("attacks hidden per language %v, want some in English, Italian and Portuguese", injected)
	}
	for name, ds := range hand {
		if strings.HasSuffix(name, "-extra") {
			continue
		}
		for _, d := range ds {
			if strings.HasPrefix(d.ID, "extra/") {
				t.Errorf("%s holds %s", name, d.ID)
			}
		}
	}
}

// TestHandwrittenRounds checks that the examples of examples/r7/, r9/, r10ml/ and r12/ go to
// budgets of their own (attacks with labels, harmless texts) and never into
// the other sources, whose weights a default rebuild must keep.
func TestHandwrittenRounds(t *testing.T) {
	hand, err := handwritten()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		round string
		langs []string
		// minimum attacks and harmless texts per language
		attacks, benign int
	}{
		{"r7", []string{"en"}, 50, 100},
		{"r9", []string{"de", "en", "es", "fr", "it", "nl", "pt"}, 0, 40},
		{"r10ml", []string{"bn", "ko", "ru", "th", "tr", "vi", "zh"}, 30, 15},
		{"r12", []string{"en"}, 0, 6},
	} {
		t.Run(tc.round, func(t *testing.T) {
			for _, kind := range []struct {
				name   string
				attack bool
				min    int
			}{{"hand/attack-" + tc.round, true, tc.attacks}, {"hand/benign-" + tc.round, false, tc.benign}} {
				per := map[string]int{}
				for _, d := range hand[kind.name] {
					per[d.Lang]++
					if d.Attack != kind.attack || !slices.Contains(tc.langs, d.Lang) || !strings.HasPrefix(d.ID, tc.round+"/") || kind.attack && len(d.Labels) == 0 {
						t.Errorf("%s: %s is not a text of examples/%s/: %+v", kind.name, d.ID, tc.round, d)
					}
				}
				for _, lang := range tc.langs {
					if per[lang] < kind.min {
						t.Errorf("%s: %d texts in %s, want at least %d", kind.name, per[lang], lang, kind.min)
					}
				}
			}
			for name, ds := range hand {
				if strings.HasSuffix(name, "-"+tc.round) {
					continue
				}
				for _, d := range ds {
					if strings.HasPrefix(d.ID, tc.round+"/") {
						t.Errorf("%s holds %s", name, d.ID)
					}
				}
			}
		})
	}
}
