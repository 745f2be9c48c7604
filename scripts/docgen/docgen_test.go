package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/sluice-api/sluice/internal/services/builtin"
)

func root(parts ...string) string { return filepath.Join(append([]string{"..", ".."}, parts...)...) }

// TestServicesDocUpToDate fails when docs/services.md differs from what the descriptors say.
func TestServicesDocUpToDate(t *testing.T) {
	reg, err := builtin.New()
	if err != nil {
		t.Fatal(err)
	}
	old, err := os.ReadFile(root(Target))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, Render(reg)) {
		t.Fatalf("%s is out of date: run go run ./scripts/docgen", Target)
	}
}
