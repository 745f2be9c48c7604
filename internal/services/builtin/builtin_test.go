package builtin

import (
	"slices"
	"testing"
)

// TestNew builds the registry the binaries use: every service is there, under its own name,
// however the concurrent loads finish.
func TestNew(t *testing.T) {
	want := []string{
		"governance.pii.redact", "governance.pii.tokenize", "routing.intent.map",
		"routing.language.detect", "security.jailbreak.shield", "security.toxicity.flag",
	}
	reg, err := New()
	if err != nil {
		t.Fatal(err)
	}
	got := reg.Names()
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("services = %v, want %v", got, want)
	}
	for _, name := range want {
		if _, d, ok := reg.Lookup(name); !ok || d.Name != name {
			t.Errorf("Lookup(%q) = %q, %v", name, d.Name, ok)
		}
	}
}
