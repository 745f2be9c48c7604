package shielddata

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadMixed reads the committed mixed-language sets and a malformed file.
func TestReadMixed(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	for _, tc := range []struct {
		name            string
		read            func(string) ([]Doc, error)
		benign, attacks int
		minLen, maxLen  int
	}{
		{"HeldOut", MixedHeldOut, 29, 16, 150, 1500},
		{"Dev", MixedDev, 17, 3, 150, 1500},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs, err := tc.read(root)
			if err != nil {
				t.Fatal(err)
			}
			var b, a int
			for _, d := range docs {
				if d.Attack {
					a++
				} else {
					b++
				}
				if !strings.Contains(d.Lang, "+") {
					t.Errorf("%s: languages %q, want two or more", d.ID, d.Lang)
				}
				if n := len([]rune(d.Text)); n < tc.minLen || n > tc.maxLen {
					t.Errorf("%s: %d characters", d.ID, n)
				}
				if strings.Contains(d.Text, `\n`) {
					t.Errorf("%s: escaped line break left in the text", d.ID)
				}
			}
			if b != tc.benign || a != tc.attacks {
				t.Fatalf("%d harmless and %d attacks, want %d and %d", b, a, tc.benign, tc.attacks)
			}
		})
	}
	t.Run("Malformed", func(t *testing.T) {
		dir := t.TempDir()
		td := filepath.Join(dir, "internal", "services", "shield", "testdata")
		if err := os.MkdirAll(td, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, body := range map[string]string{"b.tsv": "# comment\nen+de\tkind\n", "a.tsv": "en+fr\tkind\ttext\n"} {
			if err := os.WriteFile(filepath.Join(td, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := readMixed(dir, "b.tsv", "a.tsv"); err == nil || !strings.Contains(err.Error(), "b.tsv:2") {
			t.Fatalf("err %v, want one naming b.tsv:2", err)
		}
	})
}
