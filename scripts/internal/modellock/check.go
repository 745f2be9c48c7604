package modellock

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// ModelDirs are the directories of the repository whose model files must all be locked.
var ModelDirs = []string{"internal/services"}

// GeneratedDirs are directories of the repository that a make target fills before training and
// git ignores (the shield's Apertium translations, made by make shield-translations). Their
// files are locked as inputs with Why "generated": models-verify makes them again and the
// trainer's trace compares them, but CheckTree, which runs on a fresh clone, cannot.
var GeneratedDirs = []string{"scripts/train/shield/translated"}

// modelSuffixes name model files that are not in the container format (yet).
var modelSuffixes = []string{".model", ".bin", ".bin.gz"}

// CheckTree compares the repository at root with the lock, reading no data outside it: every
// locked model file and every locked input of the repository (word lists, hand-written data)
// has its locked SHA-256, every model file under ModelDirs is locked, and every word list a
// locked model file records is locked with the hash the model records. It returns every
// difference, not just the first.
func CheckTree(root string, l *Lock) []error {
	var errs []error
	locked := map[string]string{} // model file -> model name
	for _, m := range l.Models {
		for _, f := range m.Files {
			locked[f.Path] = m.Name
			if err := checkHash(root, f.Path, f.SHA256); err != nil {
				errs = append(errs, fmt.Errorf("model %s: %w", m.Name, err))
				continue
			}
			lists, err := recordedLists(filepath.Join(root, filepath.FromSlash(f.Path)))
			if err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, fmt.Errorf("model %s: %w", m.Name, err))
			}
			for name, sum := range lists {
				p := filepath.ToSlash(filepath.Join(filepath.Dir(f.Path), name))
				if !slices.ContainsFunc(m.Inputs, func(in Input) bool { return in.Path == p && in.SHA256 == sum }) {
					errs = append(errs, fmt.Errorf("model %s: %s records word list %s (SHA-256 %.12s…), which the lock does not have with that hash; lock the model again", m.Name, f.Path, p, sum))
				}
			}
		}
		for _, in := range m.Inputs {
			if in.Module != "" || in.Package != "" || strings.HasPrefix(in.Path, DataVar+"/") || in.Why == "generated" {
				continue
			}
			if err := checkHash(root, in.Path, in.SHA256); err != nil {
				errs = append(errs, fmt.Errorf("model %s, input: %w", m.Name, err))
			}
		}
	}
	for _, dir := range ModelDirs {
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if _, ok := locked[rel]; ok || strings.Contains(rel, "/testdata/") {
				return nil
			}
			if isModelFile(p) {
				errs = append(errs, fmt.Errorf("%s is a model file the lock does not have; add its trainer to %s and lock it", rel, FileName))
			}
			return nil
		})
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errs
}

func checkHash(root, rel, want string) error {
	sum, err := HashFile(filepath.Join(root, filepath.FromSlash(rel)))
	if err != nil {
		return fmt.Errorf("%s: %w", rel, err)
	}
	if sum != want {
		return fmt.Errorf("%s has SHA-256 %.12s…, the lock %.12s…: it changed without the lock (retrain and lock with `go run ./scripts/models lock`)", rel, sum, want)
	}
	return nil
}

// isModelFile reports whether the file at p is a model file: in the container format, or named
// like the model files not in it.
func isModelFile(p string) bool {
	if slices.ContainsFunc(modelSuffixes, func(s string) bool { return strings.HasSuffix(p, s) }) {
		return true
	}
	f, err := os.Open(p)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(modelfile.Magic))
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], []byte(modelfile.Magic))
}
