package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// translatedLangs are the languages of the Apertium translations (./translate).
var translatedLangs = []string{"es", "fr", "it", "pt"}

// translated reads the Apertium translations written by ./translate (make shield-translations)
// into dir: the attacks, then the harmless texts. It reads versions.txt too, so that models.lock
// records the package versions the translations came from.
func translated(dir string) (attacks, benign []shielddata.Doc, err error) {
	if _, err := os.ReadFile(filepath.Join(dir, "versions.txt")); err != nil {
		return nil, nil, fmt.Errorf("the Apertium translations (run make shield-translations): %w", err)
	}
	for _, lang := range translatedLangs {
		b, err := os.ReadFile(filepath.Join(dir, lang+".tsv"))
		if err != nil {
			return nil, nil, fmt.Errorf("the Apertium translations (run make shield-translations): %w", err)
		}
		for i, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
			f := strings.SplitN(line, "\t", 4)
			if len(f) != 4 || f[2] != "0" && f[2] != "1" {
				return nil, nil, fmt.Errorf("%s.tsv:%d: want source, id, 0 or 1, text", lang, i+1)
			}
			if strings.TrimSpace(f[3]) == "" {
				continue
			}
			d := shielddata.Doc{ID: lang + "/" + f[0] + "/" + f[1], Source: "apertium-" + f[0], Lang: lang, Text: f[3], Attack: f[2] == "1"}
			if d.Attack {
				attacks = append(attacks, d)
			} else {
				benign = append(benign, d)
			}
		}
	}
	return attacks, benign, nil
}
