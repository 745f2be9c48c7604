package names

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
)

// The model file. modelMagic starts it; then the metadata: the number of entries (uvarint) and
// each entry's key and value as uvarint-length-prefixed strings, keys in order; then the number
// of bucket bits (a byte), the scale (a little-endian float32), the number of non-zero weights
// (uvarint), and each non-zero weight as the uvarint gap from the previous one's index and its
// little-endian int16 value. Most weights are zero: this sparse form is a fraction of the dense
// one and reads in a few milliseconds. (SLPT1 and SLPT2 were the greedy tagger's files.)
const modelMagic = "SLPT3"

// Metadata keys of the model file; the others are the SHA-256 of its parts (see Record).
const (
	metaFeatures = "features" // featureVersion: the features the weights are for
	metaBiasB    = "bias-b"   // Model.biasB, a decimal number; absent means 0
)

// featureVersion names the features of obsFeatures and transFeatures. A change to them that
// moves a hash changes this, and a model trained with other features is refused.
const featureVersion = "viterbi-1"

// Names of the files a model is made of besides the model file, as the model file records them.
const (
	GazetteerFile = "gazetteer.bin.gz"
	ClustersFile  = "clusters.bin.gz"
)

// hashKey is the metadata key of the SHA-256 of the file name.
func hashKey(name string) string { return "sha256:" + name }

// Record notes in m the SHA-256 of data, the content of the file name the model is trained with,
// so that Load refuses any other content for it.
func (m *Model) Record(name string, data []byte) {
	if m.meta == nil {
		m.meta = map[string]string{}
	}
	sum := sha256.Sum256(data)
	m.meta[hashKey(name)] = hex.EncodeToString(sum[:])
}

// check returns an error when m records a SHA-256 for the file name that data does not have.
// A model file without metadata (the earlier forms) records none.
func (m *Model) check(name string, data []byte) error {
	want, ok := m.meta[hashKey(name)]
	if !ok {
		return nil
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != want {
		return fmt.Errorf("names model: %s has SHA-256 %.12s…, the model was trained with %.12s…", name, got, want)
	}
	return nil
}

// WriteTo writes the model (see modelMagic).
func (m *Model) WriteTo(w io.Writer) (int64, error) {
	var buf bytes.Buffer
	buf.WriteString(modelMagic)
	meta := map[string]string{}
	for k, v := range m.meta {
		meta[k] = v
	}
	if m.biasB != 0 {
		meta[metaBiasB] = strconv.FormatFloat(m.biasB, 'g', -1, 64)
	}
	meta[metaFeatures] = featureVersion
	keys := make([]string, 0, len(meta))
	for k := range meta {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	buf.Write(binary.AppendUvarint(nil, uint64(len(keys))))
	for _, k := range keys {
		for _, s := range []string{k, meta[k]} {
			buf.Write(binary.AppendUvarint(nil, uint64(len(s))))
			buf.WriteString(s)
		}
	}
	buf.WriteByte(byte(m.bits))
	buf.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(m.scale)))
	nonZero := 0
	for _, v := range m.weights {
		if v != 0 {
			nonZero++
		}
	}
	buf.Write(binary.AppendUvarint(nil, uint64(nonZero)))
	next := 0
	for i, v := range m.weights {
		if v == 0 {
			continue
		}
		buf.Write(binary.AppendUvarint(nil, uint64(i-next)))
		buf.Write(binary.LittleEndian.AppendUint16(nil, uint16(v)))
		next = i + 1
	}
	n, err := w.Write(buf.Bytes())
	return int64(n), err
}

// ReadModel reads what WriteTo wrote. The model has no gazetteer until WithGazetteer.
func ReadModel(r io.Reader) (*Model, error) {
	raw, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("names model: %w", err)
	}
	m, rest, err := readModelHeader(raw)
	if err != nil {
		return nil, err
	}
	weights := make([]int16, (1<<m.bits)*numLabels)
	count, k := binary.Uvarint(rest)
	if k <= 0 || count > uint64(len(weights)) || count > uint64(len(rest))/3 {
		return nil, errors.New("names model: bad weight count")
	}
	rest = rest[k:]
	next := uint64(0)
	for range count {
		gap, k := binary.Uvarint(rest)
		if k <= 0 || len(rest) < k+2 || gap >= uint64(len(weights))-next {
			return nil, errors.New("names model: weights out of range or cut short")
		}
		i := next + gap
		weights[i] = int16(binary.LittleEndian.Uint16(rest[k:]))
		rest = rest[k+2:]
		next = i + 1
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("names model: %d bytes after the weights", len(rest))
	}
	m.weights = weights
	return m, nil
}

// readModelHeader reads the magic, the metadata, the bucket bits and the scale at the start of
// raw into a model without weights, and returns the bytes after them.
func readModelHeader(raw []byte) (*Model, []byte, error) {
	if !bytes.HasPrefix(raw, []byte(modelMagic)) {
		return nil, nil, errors.New("names model: bad magic")
	}
	m := &Model{}
	raw = raw[len(modelMagic):]
	var err error
	if m.meta, raw, err = readMeta(raw); err != nil {
		return nil, nil, err
	}
	if v := m.meta[metaFeatures]; v != featureVersion {
		return nil, nil, fmt.Errorf("names model: trained for features %q, this package has %q", v, featureVersion)
	}
	delete(m.meta, metaFeatures)
	if v, ok := m.meta[metaBiasB]; ok {
		b, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(b) || math.IsInf(b, 0) {
			return nil, nil, fmt.Errorf("names model: bias %q", v)
		}
		m.biasB = b
		delete(m.meta, metaBiasB)
	}
	if m.bits, m.scale, raw, err = readHeader(raw); err != nil {
		return nil, nil, err
	}
	return m, raw, nil
}

// maxMeta bounds the metadata of a model file: entries, and bytes of one key or value.
const maxMeta = 256

// readMeta reads the metadata entries at the start of raw and returns them and the rest.
func readMeta(raw []byte) (map[string]string, []byte, error) {
	n, k := binary.Uvarint(raw)
	if k <= 0 || n > maxMeta {
		return nil, nil, errors.New("names model: bad metadata count")
	}
	raw = raw[k:]
	meta := make(map[string]string, n)
	prev := ""
	for i := range n {
		var kv [2]string
		for j := range kv {
			l, k := binary.Uvarint(raw)
			if k <= 0 || l > maxMeta || uint64(len(raw)-k) < l {
				return nil, nil, errors.New("names model: metadata cut short")
			}
			kv[j] = string(raw[k : k+int(l)])
			raw = raw[k+int(l):]
		}
		if i > 0 && kv[0] <= prev {
			return nil, nil, errors.New("names model: metadata keys out of order")
		}
		prev = kv[0]
		meta[kv[0]] = kv[1]
	}
	return meta, raw, nil
}

// readHeader reads the bucket bits and the scale at the start of raw and returns them and the
// bytes after them.
func readHeader(raw []byte) (bits uint, scale float32, rest []byte, err error) {
	if len(raw) < 5 {
		return 0, 0, nil, errors.New("names model: header cut short")
	}
	bits = uint(raw[0])
	if bits < 8 || bits > 22 {
		return 0, 0, nil, fmt.Errorf("names model: %d bucket bits", bits)
	}
	return bits, math.Float32frombits(binary.LittleEndian.Uint32(raw[1:5])), raw[5:], nil
}
