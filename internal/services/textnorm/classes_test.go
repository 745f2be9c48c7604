package textnorm

import "testing"

// TestClassTables: the look-up tables agree with computeClass on every rune they cover, and the
// ranges classOf answers without them agree too.
func TestClassTables(t *testing.T) {
	for _, tc := range []struct {
		name     string
		from, to rune
	}{
		{"Main", 0, classTableSize},
		{"Symbols", symbolTableBase, symbolTableBase + symbolTableSize},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for r := tc.from; r < tc.to; r++ {
				if got, want := classOf(r), computeClass(r); got != want {
					t.Fatalf("classOf(%U) = %08b, want %08b", r, got, want)
				}
			}
		})
	}
}
