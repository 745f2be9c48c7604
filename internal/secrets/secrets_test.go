package secrets

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestFileCreatesOnceAndKeeps(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nested", "secrets.json")
	const n = 8
	got := make([]Secrets, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { got[i], errs[i] = File{Path: path}.Load(t.Context()) })
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i].Pepper, got[0].Pepper) || !bytes.Equal(got[i].TokenKey, got[0].TokenKey) {
			t.Fatal("concurrent creators saw different secrets")
		}
	}
	if bytes.Equal(got[0].Pepper, got[0].TokenKey) || got[0].Validate() != nil {
		t.Fatalf("secrets = %+v", got[0])
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("secrets file mode = %v, %v", info.Mode(), err)
	}
	again, err := File{Path: path}.Load(t.Context())
	if err != nil || !bytes.Equal(again.Pepper, got[0].Pepper) {
		t.Fatal("secrets changed between loads")
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".secrets-*"))
	if len(leftovers) != 0 {
		t.Fatalf("temporary files left behind: %v", leftovers)
	}
}

func TestParse(t *testing.T) {
	doc, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		doc  string
		ok   bool
	}{
		{"Generated", string(doc), true},
		{"NotJSON", "pepper=1", false},
		{"NotBase64", `{"pepper":"***","tokenization_key":"***"}`, false},
		{"TooShort", `{"pepper":"c2hvcnQ=","tokenization_key":"c2hvcnQ="}`, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Parse([]byte(tc.doc)); (err == nil) != tc.ok {
				t.Fatalf("Parse = %v", err)
			}
		})
	}
}
