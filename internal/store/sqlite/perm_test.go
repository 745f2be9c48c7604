package sqlite

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestFilesArePrivate: the database and the -wal and -shm files SQLite makes beside it can be read
// by their owner only (0600), whatever the umask, and a database file that was readable by others
// is made private when it is opened.
func TestFilesArePrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no POSIX permissions")
	}
	for _, tc := range []struct {
		name   string
		before os.FileMode // 0: no file before Open
	}{
		{"New", 0},
		{"WasWorldReadable", 0o644},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "sluice.db")
			if tc.before != 0 {
				if err := os.WriteFile(path, nil, tc.before); err != nil {
					t.Fatal(err)
				}
				if err := os.Chmod(path, tc.before); err != nil { // past the umask
					t.Fatal(err)
				}
			}
			s, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			// A write makes SQLite create the WAL and its index.
			if _, _, err := s.Hit(t.Context(), "acct-1", time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), 1); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{path, path + "-wal", path + "-shm"} {
				fi, err := os.Stat(f)
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode().Perm() != 0o600 {
					t.Errorf("%s has mode %v, want 0600", filepath.Base(f), fi.Mode().Perm())
				}
			}
		})
	}
}
