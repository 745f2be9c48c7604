package main

import (
	"path/filepath"
	"testing"

	"github.com/sluice-api/sluice/scripts/internal/modellock"
)

// TestLock: every model file of the repository, and every word list and hand-written input of
// its training, is the one models.lock records. Retrain and lock (go run ./scripts/models lock
// NAME) when this fails.
func TestLock(t *testing.T) {
	root := filepath.Join("..", "..")
	lock, err := modellock.Read(filepath.Join(root, modellock.FileName))
	if err != nil {
		t.Fatal(err)
	}
	if len(lock.Models) == 0 {
		t.Fatal("the lock has no models")
	}
	for _, m := range lock.Models {
		if len(m.Files) == 0 || m.Command == "" || m.Built.Arch == "" || len(m.Eval.Figures) == 0 || m.Eval.Tolerance <= 0 {
			t.Errorf("model %s is not locked: lock it with go run ./scripts/models lock %s", m.Name, m.Name)
		}
	}
	for _, err := range modellock.CheckTree(root, lock) {
		t.Error(err)
	}
}
