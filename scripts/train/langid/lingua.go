package main

import (
	"archive/zip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"

	"google.golang.org/protobuf/encoding/protowire"
)

// orderFiles are lingua-go's model file names by n-gram length.
var orderFiles = [...]string{1: "unigrams", 2: "bigrams", 3: "trigrams", 4: "quadrigrams", 5: "fivegrams"}

// linguaTables are one language's n-gram tables as lingua-go stores them: for length 1 the
// relative frequency of a letter, for length n > 1 the probability of the n-gram's last letter
// given its first n-1 letters (count(ngram) / count(prefix)), counted within runs of the
// language's letters of lower-cased Leipzig corpus lines. tables[n] is nil when lingua-go has no
// model of that length for the language.
type linguaTables [6]map[string]float64

// readLingua reads the tables of lang from dir (lingua-go's language-models directory).
func readLingua(dir, lang string) (linguaTables, error) {
	var t linguaTables
	for n := 1; n <= 5; n++ {
		path := filepath.Join(dir, lang, orderFiles[n]+".pb.bin.zip")
		if _, err := os.Stat(path); os.IsNotExist(err) {
			continue
		}
		m, err := decodeModel(path)
		if err != nil {
			return t, fmt.Errorf("%s: %w", path, err)
		}
		t[n] = m
	}
	if t[1] == nil {
		return t, fmt.Errorf("no lingua unigram model for %q in %s", lang, dir)
	}
	return t, nil
}

// decodeModel unzips one lingua-go model file and decodes its SerializableLanguageModel
// (protobuf: field 4 = repeated {1: double probability, 2: repeated string ngrams}).
func decodeModel(path string) (map[string]float64, error) {
	zr, err := zip.OpenReader(path)
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	if len(zr.File) != 1 {
		return nil, fmt.Errorf("want one file in the archive, found %d", len(zr.File))
	}
	f, err := zr.File[0].Open()
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	m := map[string]float64{}
	for len(b) > 0 {
		num, typ, k := protowire.ConsumeTag(b)
		if k < 0 {
			return nil, protowire.ParseError(k)
		}
		b = b[k:]
		if num != 4 || typ != protowire.BytesType {
			k = protowire.ConsumeFieldValue(num, typ, b)
			if k < 0 {
				return nil, protowire.ParseError(k)
			}
			b = b[k:]
			continue
		}
		set, k := protowire.ConsumeBytes(b)
		if k < 0 {
			return nil, protowire.ParseError(k)
		}
		b = b[k:]
		p := math.NaN()
		var grams []string
		for len(set) > 0 {
			num, typ, k := protowire.ConsumeTag(set)
			if k < 0 {
				return nil, protowire.ParseError(k)
			}
			set = set[k:]
			switch {
			case num == 1 && typ == protowire.Fixed64Type:
				v, k := protowire.ConsumeFixed64(set)
				if k < 0 {
					return nil, protowire.ParseError(k)
				}
				set = set[k:]
				p = math.Float64frombits(v)
			case num == 2 && typ == protowire.BytesType:
				s, k := protowire.ConsumeBytes(set)
				if k < 0 {
					return nil, protowire.ParseError(k)
				}
				set = set[k:]
				grams = append(grams, string(s))
			default:
				k := protowire.ConsumeFieldValue(num, typ, set)
				if k < 0 {
					return nil, protowire.ParseError(k)
				}
				set = set[k:]
			}
		}
		if !(p > 0 && p <= 1) {
			return nil, fmt.Errorf("n-gram set with probability %v", p)
		}
		for _, g := range grams {
			m[g] = p
		}
	}
	return m, nil
}

// sortedKeys returns m's keys in order, for deterministic iteration.
func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
