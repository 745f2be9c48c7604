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
	hand, err := handwritten([]shielddata.Email{{ID: "e1", Context: "Hello team, the meeting moved to Friday. Best, Anna"}})
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
		if strings.HasSuffix(name, "-more") {
			continue
		}
		for _, d := range ds {
			if strings.HasPrefix(d.ID, "more/") || !slices.Contains([]string{"de", "en", "es", "fr", "it", "nl", "pt"}, d.Lang) {
				t.Errorf("%s holds %s (language %s)", name, d.ID, d.Lang)
			}
		}
	}
}
