package local

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestSeedKeys(t *testing.T) {
	const a, b = "sluice_live_0123456789abcdefghijABCDEFGHIJ01", "sluice_live_ZYXWVUTSRQ0123456789abcdefghijkl"
	for _, tc := range []struct {
		name, env string
		want      []string
		err       bool
	}{
		{"Empty", "", nil, false},
		{"Blank", " \n\t", nil, false},
		{"One", a, []string{a}, false},
		{"CommaAndSpace", a + ", " + b + "\n", []string{a, b}, false},
		{"Malformed", a + ",sluice_live_short", nil, true},
		{"NoPrefix", "0123456789abcdefghijABCDEFGHIJ01", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SeedKeys(tc.env)
			if (err != nil) != tc.err {
				t.Fatalf("SeedKeys(%q) error = %v, want error %v", tc.env, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "sluice_live_short") {
				t.Errorf("the error quotes the key: %v", err)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("SeedKeys(%q) = %q, want %q", tc.env, got, tc.want)
			}
		})
	}
}

// TestPrivateDir: the data directory (pepper, tokenization key, database) is made 0700, also
// when it existed with wider permissions.
func TestPrivateDir(t *testing.T) {
	for _, before := range []os.FileMode{0, 0o755, 0o700} {
		dir := filepath.Join(t.TempDir(), "data")
		if before != 0 {
			if err := os.Mkdir(dir, before); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dir, before); err != nil {
				t.Fatal(err)
			}
		}
		if err := privateDir(dir); err != nil {
			t.Fatal(err)
		}
		if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
			t.Errorf("from %v: mode %v, %v; want 0700", before, fi.Mode().Perm(), err)
		}
	}
}
