package names

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// The model file is one internal/modelfile container, ID ModelID, with up to four sections:
//
//   - weights: the number of non-zero weights (uvarint), then each non-zero weight as the
//     uvarint gap from the previous one's index and its little-endian int16 value. Most weights
//     are zero: this sparse form is a fraction of the dense one and reads in a few milliseconds;
//   - gazetteer: the gazetteer (see Gazetteer.marshal);
//   - clusters: the word classes (see Clusters.marshal); absent for a model without them.
//
// The metadata (fileMeta) holds the features the weights are for, the number of bucket bits, the
// scale of the weights, the bias of B and the SHA-256 of every word list of lists/ the model was
// trained with, under modelfile.ListsKey; Decode refuses a package whose lists differ.

// ModelID is the model file's id, and the model id of the services that run the tagger.
const ModelID = "sluice-pii-v4"

// featureVersion names the features of obsFeatures and transFeatures. A change to them that
// moves a hash changes this, and a model trained with other features is refused.
const featureVersion = "viterbi-1"

// Section names of the model file.
const (
	sectionWeights   = "weights"
	sectionGazetteer = "gazetteer"
	sectionClusters  = "clusters"
)

// fileMeta is the model file's metadata.
type fileMeta struct {
	Features string            `json:"features"`
	Bits     uint              `json:"bits"`
	Scale    float32           `json:"scale"`
	BiasB    float64           `json:"bias-b,omitempty"`
	Lists    map[string]string `json:"lists"`
}

// Encode returns the model file of m: its weights, its gazetteer and its word classes.
func (m *Model) Encode() ([]byte, error) {
	if m.gaz == nil {
		return nil, errors.New("names model: encode: no gazetteer")
	}
	sections := []modelfile.Section{{Name: sectionWeights, Data: m.appendWeights(nil)}}
	gaz, err := m.gaz.marshal()
	if err != nil {
		return nil, fmt.Errorf("names model: encode: %w", err)
	}
	sections = append(sections, modelfile.Section{Name: sectionGazetteer, Data: gaz})
	if m.clus != nil {
		clus, err := m.clus.marshal()
		if err != nil {
			return nil, fmt.Errorf("names model: encode: %w", err)
		}
		sections = append(sections, modelfile.Section{Name: sectionClusters, Data: clus})
	}
	meta := fileMeta{Features: featureVersion, Bits: m.bits, Scale: m.scale, BiasB: m.biasB, Lists: m.lists}
	b, err := modelfile.Encode(ModelID, meta, sections...)
	if err != nil {
		return nil, fmt.Errorf("names model: encode: %w", err)
	}
	return b, nil
}

// Decode reads a model file written by Encode. It refuses a file of another model or other
// features, and one trained with word lists other than the embedded ones (lists/*.txt).
func Decode(data []byte) (*Model, error) {
	m, f, err := decodeWeights(data)
	if err != nil {
		return nil, err
	}
	if err := modelfile.CheckLists(m.lists, listContents()); err != nil {
		return nil, fmt.Errorf("names model: %w; rebuild it with go run ./scripts/models lock pii", err)
	}
	raw, err := f.Section(sectionGazetteer)
	if err != nil {
		return nil, fmt.Errorf("names model: %w", err)
	}
	if m.gaz, err = unmarshalGazetteer(raw); err != nil {
		return nil, fmt.Errorf("names model: %w", err)
	}
	if raw, err := f.Section(sectionClusters); err == nil {
		if m.clus, err = unmarshalClusters(raw); err != nil {
			return nil, fmt.Errorf("names model: %w", err)
		}
	}
	return m, nil
}

// decodeWeights reads the container, the metadata and the weights of a model file, without
// checking its word lists or reading its gazetteer and word classes.
func decodeWeights(data []byte) (*Model, *modelfile.File, error) {
	f, err := modelfile.Decode(data)
	if err != nil {
		return nil, nil, fmt.Errorf("names model: %w", err)
	}
	if f.ID != ModelID {
		return nil, nil, fmt.Errorf("names model: the file is model %q, this package reads %q", f.ID, ModelID)
	}
	var meta fileMeta
	if err := f.UnmarshalMeta(&meta); err != nil {
		return nil, nil, fmt.Errorf("names model: %w", err)
	}
	if meta.Features != featureVersion {
		return nil, nil, fmt.Errorf("names model: trained for features %q, this package has %q", meta.Features, featureVersion)
	}
	if meta.Bits < 8 || meta.Bits > 22 {
		return nil, nil, fmt.Errorf("names model: %d bucket bits", meta.Bits)
	}
	s := float64(meta.Scale)
	if math.IsNaN(meta.BiasB) || math.IsInf(meta.BiasB, 0) || math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
		return nil, nil, fmt.Errorf("names model: bias %v or scale %v", meta.BiasB, meta.Scale)
	}
	m := &Model{bits: meta.Bits, scale: meta.Scale, biasB: meta.BiasB, lists: meta.Lists}
	raw, err := f.Section(sectionWeights)
	if err != nil {
		return nil, nil, fmt.Errorf("names model: %w", err)
	}
	if m.weights, err = readWeights(raw, (1<<m.bits)*numLabels); err != nil {
		return nil, nil, err
	}
	return m, f, nil
}

// appendWeights appends the weights section of m to b.
func (m *Model) appendWeights(b []byte) []byte {
	nonZero := 0
	for _, v := range m.weights {
		if v != 0 {
			nonZero++
		}
	}
	b = binary.AppendUvarint(b, uint64(nonZero))
	next := 0
	for i, v := range m.weights {
		if v == 0 {
			continue
		}
		b = binary.AppendUvarint(b, uint64(i-next))
		b = binary.LittleEndian.AppendUint16(b, uint16(v))
		next = i + 1
	}
	return b
}

// readWeights reads a weights section into n weights.
func readWeights(raw []byte, n int) ([]int16, error) {
	weights := make([]int16, n)
	count, k := binary.Uvarint(raw)
	if k <= 0 || count > uint64(len(weights)) || count > uint64(len(raw))/3 {
		return nil, errors.New("names model: bad weight count")
	}
	raw = raw[k:]
	next := uint64(0)
	for range count {
		gap, k := binary.Uvarint(raw)
		if k <= 0 || len(raw) < k+2 || gap >= uint64(len(weights))-next {
			return nil, errors.New("names model: weights out of range or cut short")
		}
		i := next + gap
		weights[i] = int16(binary.LittleEndian.Uint16(raw[k:]))
		raw = raw[k+2:]
		next = i + 1
	}
	if len(raw) != 0 {
		return nil, fmt.Errorf("names model: %d bytes after the weights", len(raw))
	}
	return weights, nil
}
