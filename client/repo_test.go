package client_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// The drift test, the documentation tests and the end-to-end tests read the Sluice repository
// this module lives in (the OpenAPI document, the README, the local server's source). A copy of
// the module outside it (vendored by a customer) skips them; inside it they never skip.

var sluiceModule = regexp.MustCompile(`(?m)^module github\.com/sluice-api/sluice\s*$`)

// repoRoot returns the Sluice repository around this module, or skips the test outside one.
func repoRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil || !sluiceModule.Match(b) {
		t.Skip("not inside the Sluice repository (no ../go.mod of github.com/sluice-api/sluice): nothing to compare with")
	}
	return root
}
