package names

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// tinyFiles trains a small Viterbi model with word classes and returns its files.
func tinyFiles(t testing.TB) Files {
	t.Helper()
	gb := NewGazetteerBuilder()
	for _, w := range []string{"anna", "tomasz", "mike"} {
		gb.Add(w, Given)
	}
	gb.Add("kowalski", Surname)
	g := gb.Build()
	c, err := NewClusters([]int{2, 4}, map[string][]int{"anna": {0, 1}, "tomasz": {0, 1}, "ask": {1, 2}, "about": {1, 3}})
	if err != nil {
		t.Fatal(err)
	}
	var exs []Example
	for _, n := range []string{"Anna", "Tomasz", "Mike Kowalski"} {
		text := "ask " + n + " about it"
		exs = append(exs, Example{Text: text, Names: []Span{{Start: 4, End: 4 + len(n)}}})
	}
	m := Train(exs, TrainConfig{Bits: 10, Epochs: 3, Seed: 1, Gazetteer: g, Clusters: c}).WithBias(0.25)
	var gz, cl, mf bytes.Buffer
	if _, err := g.WriteTo(&gz); err != nil {
		t.Fatal(err)
	}
	if _, err := c.WriteTo(&cl); err != nil {
		t.Fatal(err)
	}
	m.Record(GazetteerFile, gz.Bytes())
	m.Record(ClustersFile, cl.Bytes())
	if _, err := m.WriteTo(&mf); err != nil {
		t.Fatal(err)
	}
	return Files{Model: mf.Bytes(), Gazetteer: gz.Bytes(), Clusters: cl.Bytes()}
}

func TestModelFileRoundTrip(t *testing.T) {
	files := tinyFiles(t)
	m, err := Load(files)
	if err != nil {
		t.Fatal(err)
	}
	if m.Bias() != 0.25 || m.clus.Len() != 4 || m.gaz.Len() != 4 {
		t.Fatalf("loaded bias=%v clusters=%d gazetteer=%d", m.Bias(), m.clus.Len(), m.gaz.Len())
	}
	var again bytes.Buffer
	if _, err := m.WriteTo(&again); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again.Bytes(), files.Model) {
		t.Fatal("writing the loaded model gives other bytes")
	}
	spans, err := m.Tag(context.Background(), "ask Anna about it")
	if err != nil || len(spans) != 1 {
		t.Fatalf("Tag = %v, %v", spans, err)
	}
}

func TestLoadRefusesOtherFiles(t *testing.T) {
	files := tinyFiles(t)
	other := tinyFiles(t)
	gb := NewGazetteerBuilder()
	gb.Add("zoe", Given)
	var g bytes.Buffer
	if _, err := gb.Build().WriteTo(&g); err != nil {
		t.Fatal(err)
	}
	c, _ := NewClusters([]int{3}, map[string][]int{"zoe": {2}})
	var cl bytes.Buffer
	if _, err := c.WriteTo(&cl); err != nil {
		t.Fatal(err)
	}
	for name, tc := range map[string]struct {
		files Files
		want  string
	}{
		"OtherGazetteer": {Files{Model: files.Model, Gazetteer: g.Bytes(), Clusters: files.Clusters}, GazetteerFile},
		"OtherClusters":  {Files{Model: files.Model, Gazetteer: files.Gazetteer, Clusters: cl.Bytes()}, ClustersFile},
		"NoClusters":     {Files{Model: files.Model, Gazetteer: files.Gazetteer}, ClustersFile},
		"SameTraining":   {other, ""},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(tc.files)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("Load: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("Load = %v, want an error naming %s", err, tc.want)
			}
		})
	}
}

func TestClustersRoundTrip(t *testing.T) {
	c, err := NewClusters([]int{2, 8}, map[string][]int{"Anna": {1, 7}, "ask": {0, 3}})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	r, err := ReadClusters(bytes.NewReader(b.Bytes()))
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

// FuzzReadModel checks that ReadModel never panics and that what it accepts writes back to
// a model it reads the same way.
func FuzzReadModel(f *testing.F) {
	// Seeds built without training (a training run in every fuzzing worker stalls it).
	small := &Model{bits: 8, weights: make([]int16, 256*numLabels), scale: 0.5, biasB: 0.25}
	small.weights[3], small.weights[700] = 12, -9
	small.Record(GazetteerFile, []byte("g"))
	small.recordLists()
	var b bytes.Buffer
	if _, err := small.WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add(modelFile[:64])
	f.Add([]byte(modelMagic + "\x01\x08features\x09viterbi-1\x13\x00\x00\x80\x3f\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if h, _, err := readModelHeader(data); err == nil && h.bits > 14 {
			return // a large table only makes each run slow (and minimizing an input very slow)
		}
		m, err := ReadModel(bytes.NewReader(data))
		if err != nil {
			return
		}
		var b bytes.Buffer
		if _, err := m.WriteTo(&b); err != nil {
			t.Fatal(err)
		}
		m2, err := ReadModel(bytes.NewReader(b.Bytes()))
		if err != nil {
			t.Fatalf("re-reading a written model: %v", err)
		}
		if m2.bits != m.bits || m2.biasB != m.biasB || len(m2.weights) != len(m.weights) {
			t.Fatal("round trip changed the model")
		}
	})
}

// FuzzReadClusters checks that ReadClusters never panics and that lookups in what it accepts
// stay in range.
func FuzzReadClusters(f *testing.F) {
	c, err := NewClusters([]int{2, 4}, map[string][]int{"anna": {0, 1}, "ask": {1, 3}})
	if err != nil {
		f.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := c.WriteTo(&b); err != nil {
		f.Fatal(err)
	}
	f.Add(b.Bytes())
	f.Add([]byte(clustersMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ReadClusters(bytes.NewReader(data))
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

func TestLoadChecksLists(t *testing.T) {
	files := tinyFiles(t)
	m, err := ReadModel(bytes.NewReader(files.Model))
	if err != nil {
		t.Fatal(err)
	}
	names, _ := ListFiles()
	if len(names) == 0 {
		t.Fatal("no embedded lists")
	}
	for _, n := range names {
		if _, ok := m.meta[hashKey(n)]; !ok {
			t.Fatalf("model does not record %s", n)
		}
	}
	for name, edit := range map[string]func(m *Model){
		"ChangedList": func(m *Model) { m.meta[hashKey(names[0])] = strings.Repeat("0", 64) },
		"MissingList": func(m *Model) { delete(m.meta, hashKey(names[0])) },
		"ExtraList":   func(m *Model) { m.meta[hashKey("lists/gone.txt")] = strings.Repeat("0", 64) },
	} {
		t.Run(name, func(t *testing.T) {
			m, _ := ReadModel(bytes.NewReader(files.Model))
			edit(m)
			var b bytes.Buffer
			if _, err := m.WriteTo(&b); err != nil {
				t.Fatal(err)
			}
			if _, err := Load(Files{Model: b.Bytes(), Gazetteer: files.Gazetteer, Clusters: files.Clusters}); err == nil ||
				!strings.Contains(err.Error(), "lists/") {
				t.Fatalf("Load = %v, want an error naming a list", err)
			}
		})
	}
}
