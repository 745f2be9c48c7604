package names

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// tinyModel trains a small Viterbi model with word classes.
func tinyModel(t testing.TB) *Model {
	t.Helper()
	gb := NewGazetteerBuilder()
	for _, w := range []string{"anna", "tomasz", "mike"} {
		gb.Add(w, Given)
	}
	gb.Add("kowalski", Surname)
	c, err := NewClusters([]int{2, 4}, map[string][]int{"anna": {0, 1}, "tomasz": {0, 1}, "ask": {1, 2}, "about": {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	var exs []Example
	for _, n := range []string{"Anna", "Tomasz", "Mike Kowalski"} {
		text := "ask " + n + " about it"
		exs = append(exs, Example{Text: text, Names: []Span{{Start: 4, End: 4 + len(n)}}})
	}
	return Train(exs, TrainConfig{Bits: 10, Epochs: 3, Seed: 1, Gazetteer: gb.Build(), Clusters: c}).WithBias(0.25)
}

// encode returns the model file of m.
func encode(t testing.TB, m *Model) []byte {
	t.Helper()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestModelFileRoundTrip(t *testing.T) {
	file := encode(t, tinyModel(t))
	m, err := Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bias() != 0.25 || m.clus.Len() != 4 || m.gaz.Len() != 4 {
		t.Fatalf("decoded bias=%v clusters=%d gazetteer=%d", m.Bias(), m.clus.Len(), m.gaz.Len())
	}
	if !bytes.Equal(encode(t, m), file) {
		t.Fatal("encoding the decoded model gives other bytes")
	}
	spans, err := m.Tag(context.Background(), "ask Anna about it")
	if err != nil || len(spans) != 1 {
		t.Fatalf("Tag = %v, %v", spans, err)
	}
	// A model without word classes has no clusters section and decodes without them.
	bare, err := Decode(encode(t, m.WithClusters(nil)))
	if err != nil || bare.clus != nil {
		t.Fatalf("Decode of a model without word classes: clusters %v, %v", bare.clus, err)
	}
	if _, err := (&Model{bits: 8, weights: make([]int16, 256*numLabels), scale: 1}).Encode(); err == nil {
		t.Fatal("Encode of a model without a gazetteer succeeded")
	}
}

// rewrite decodes the container of file, lets edit change its metadata and sections, and encodes
// it again.
func rewrite(t *testing.T, file []byte, edit func(meta *fileMeta, sections []modelfile.Section) (string, []modelfile.Section)) []byte {
	t.Helper()
	f, err := modelfile.Decode(file)
	if err != nil {
		t.Fatal(err)
	}
	var meta fileMeta
	if err := json.Unmarshal(f.Meta, &meta); err != nil {
		t.Fatal(err)
	}
	sections := make([]modelfile.Section, len(f.Sections))
	for i, s := range f.Sections {
		sections[i] = modelfile.Section{Name: s.Name, Data: bytes.Clone(s.Data)}
	}
	id, sections := edit(&meta, sections)
	b, err := modelfile.Encode(id, meta, sections...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// section returns the index of the section name.
func section(sections []modelfile.Section, name string) int {
	return slices.IndexFunc(sections, func(s modelfile.Section) bool { return s.Name == name })
}

func TestDecodeRefuses(t *testing.T) {
	file := encode(t, tinyModel(t))
	names, _ := ListFiles()
	if len(names) == 0 {
		t.Fatal("no embedded lists")
	}
	other := NewGazetteerBuilder()
	other.Add("zoe", Given)
	otherGaz, err := other.Build().marshal()
	if err != nil {
		t.Fatal(err)
	}
	type edit = func(meta *fileMeta, s []modelfile.Section) (string, []modelfile.Section)
	withWeights := func(w []byte) edit {
		return func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			s[section(s, sectionWeights)].Data = w
			return ModelID, s
		}
	}
	weights := func(s []modelfile.Section) []byte { return s[section(s, sectionWeights)].Data }
	f, _ := modelfile.Decode(file)
	w := weights(f.Sections)
	for _, tc := range []struct {
		name, want string
		edit       edit
	}{
		{"OtherModel", "sluice-pii-v2", func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) { return "sluice-pii-v2", s }},
		{"OtherFeatures", "viterbi-0", func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Features = "viterbi-0"
			return ModelID, s
		}},
		{"TooManyBits", "bucket bits", func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Bits = 23
			return ModelID, s
		}},
		{"NoScale", "scale", func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Scale = 0
			return ModelID, s
		}},
		{"ChangedList", names[0], func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Lists[names[0]] = strings.Repeat("0", 64)
			return ModelID, s
		}},
		{"MissingList", names[0], func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			delete(m.Lists, names[0])
			return ModelID, s
		}},
		{"ExtraList", "lists/gone.txt", func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Lists["lists/gone.txt"] = strings.Repeat("0", 64)
			return ModelID, s
		}},
		{"NoLists", "lists/", func(m *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			m.Lists = nil
			return ModelID, s
		}},
		{"NoGazetteer", sectionGazetteer, func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			return ModelID, slices.Delete(s, section(s, sectionGazetteer), section(s, sectionGazetteer)+1)
		}},
		{"BadGazetteer", "gazetteer", func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			s[section(s, sectionGazetteer)].Data = []byte("not gzip")
			return ModelID, s
		}},
		{"BadClusters", "clusters", func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			s[section(s, sectionClusters)].Data = otherGaz
			return ModelID, s
		}},
		{"NoWeights", sectionWeights, func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
			return ModelID, slices.Delete(s, section(s, sectionWeights), section(s, sectionWeights)+1)
		}},
		{"WeightsCutShort", "weights", withWeights(w[:len(w)-1])},
		{"TrailingBytes", "after the weights", withWeights(append(bytes.Clone(w), 0))},
		{"GapPastTheEnd", "weights", withWeights([]byte{1, 0xff, 0xff, 0x7f, 1, 0})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Decode(rewrite(t, file, tc.edit))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Decode = %v, want an error naming %q", err, tc.want)
			}
		})
	}
	for name, data := range map[string][]byte{
		"Empty":      nil,
		"NotAFile":   []byte("not a model"),
		"CutShort":   file[:len(file)-1],
		"OldTagger":  append([]byte("SLPT3"), file[4:]...),
		"OtherMagic": append([]byte("XXXX"), file[4:]...),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := Decode(data); err == nil {
				t.Fatal("a damaged model file was accepted")
			}
		})
	}
	// A gazetteer other than the one trained with still decodes: the file holds both.
	if _, err := Decode(rewrite(t, file, func(_ *fileMeta, s []modelfile.Section) (string, []modelfile.Section) {
		s[section(s, sectionGazetteer)].Data = otherGaz
		return ModelID, s
	})); err != nil {
		t.Fatalf("Decode with another gazetteer: %v", err)
	}
}

func TestWeightsRoundTrip(t *testing.T) {
	m := &Model{bits: 8, weights: make([]int16, 256*numLabels), scale: 0.5}
	m.weights[0], m.weights[7], m.weights[len(m.weights)-1] = -3, 1200, 9
	got, err := readWeights(m.appendWeights(nil), len(m.weights))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, m.weights) {
		t.Fatal("the weights read differ from the ones written")
	}
}

func TestClustersRoundTrip(t *testing.T) {
	c, err := NewClusters([]int{2, 8}, map[string][]int{"Anna": {1, 7}, "ask": {0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.marshal()
	if err != nil {
		t.Fatal(err)
	}
	r, err := unmarshalClusters(b)
	if err != nil {
		t.Fatal(err)
	}
	for w, want := range map[string][2]int{"anna": {1, 7}, "ask": {0, 3}, "zoe": {-1, -1}} {
		got := r.Classes(w)
		if got[0] != want[0] || got[1] != want[1] {
			t.Errorf("Classes(%q) = %v, want %v", w, got, want)
		}
	}
	for _, bad := range []struct {
		sizes   []int
		classes map[string][]int
	}{
		{nil, nil},
		{[]int{2}, map[string][]int{"a": {2}}},
		{[]int{2}, map[string][]int{"a": {0, 1}}},
		{[]int{0}, nil},
	} {
		if _, err := NewClusters(bad.sizes, bad.classes); err == nil {
			t.Errorf("NewClusters(%v, %v) accepted", bad.sizes, bad.classes)
		}
	}
}

// smallFile is a model file built without training (a training run in every fuzzing worker
// stalls it): a few weights, a two-word gazetteer and word classes.
func smallFile(t testing.TB) []byte {
	gb := NewGazetteerBuilder()
	gb.Add("anna", Given)
	gb.Add("rose", Given|Common)
	c, err := NewClusters([]int{2}, map[string][]int{"anna": {1}})
	if err != nil {
		t.Fatal(err)
	}
	m := &Model{bits: 8, weights: make([]int16, 256*numLabels), scale: 0.5, biasB: 0.25, gaz: gb.Build(), clus: c}
	m.weights[3], m.weights[700] = 12, -9
	m.recordLists()
	return encode(t, m)
}

// FuzzDecode checks that Decode never panics and that what it accepts encodes back to the same
// bytes.
func FuzzDecode(f *testing.F) {
	f.Add(smallFile(f))
	f.Add(modelFile[:64])
	f.Fuzz(func(t *testing.T, data []byte) {
		if m, _, err := decodeWeights(data); err == nil && m.bits > 14 {
			return // a large table only makes each run slow (and minimizing an input very slow)
		}
		m, err := Decode(data)
		if err != nil {
			return
		}
		again, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		m2, err := Decode(again)
		if err != nil {
			t.Fatalf("decoding an encoded model: %v", err)
		}
		if m2.bits != m.bits || m2.biasB != m.biasB || !slices.Equal(m2.weights, m.weights) || m2.gaz.Len() != m.gaz.Len() || m2.clus.Len() != m.clus.Len() {
			t.Fatal("round trip changed the model")
		}
	})
}

// FuzzUnmarshalClusters checks that unmarshalClusters never panics and that lookups in what it
// accepts stay in range.
func FuzzUnmarshalClusters(f *testing.F) {
	c, err := NewClusters([]int{2, 4}, map[string][]int{"anna": {0, 1}, "ask": {1, 3}})
	if err != nil {
		f.Fatal(err)
	}
	b, err := c.marshal()
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := unmarshalClusters(data)
		if err != nil {
			return
		}
		for _, fp := range c.fps {
			ids := c.lookup(fp)
			for k, id := range ids {
				if id < 1 || int(id) > c.sizes[k] {
					t.Fatalf("class %d out of range at level %d", id, k)
				}
			}
		}
	})
}

// BenchmarkDecode loads the embedded model file (a cold start does it once).
func BenchmarkDecode(b *testing.B) {
	for b.Loop() {
		if _, err := Decode(modelFile); err != nil {
			b.Fatal(err)
		}
	}
}
