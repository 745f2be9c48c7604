package names

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"slices"
)

// Clusters holds the word classes learned from unlabeled text (scripts/internal/wordclust): for
// each lower-case word seen often enough, its class at a few granularities (a few dozen classes,
// a few hundred, a thousand). Words that follow the same words share a class, so "tomasz" in
// "ask tomasz about it" falls with the given names the labelled data has. Like the gazetteer it
// stores a 29-bit fingerprint of each word, sorted, with an index on the top bits.
type Clusters struct {
	levels int
	sizes  []int
	fps    []uint32 // sorted fingerprints
	ids    []uint16 // levels per word: the class + 1 at each level
	index  []uint32 // index[b] = first fingerprint whose top indexBits bits are >= b
}

// MaxClusterLevels is the largest number of granularities a cluster file may hold.
const MaxClusterLevels = 4

// NewClusters returns the classes of words: classes[w][k] is word w's class at level k, below
// sizes[k].
func NewClusters(sizes []int, classes map[string][]int) (*Clusters, error) {
	if len(sizes) == 0 || len(sizes) > MaxClusterLevels {
		return nil, fmt.Errorf("clusters: %d levels, want 1 to %d", len(sizes), MaxClusterLevels)
	}
	for _, s := range sizes {
		if s < 1 || s >= 1<<16 {
			return nil, fmt.Errorf("clusters: %d classes", s)
		}
	}
	type entry struct {
		fp  uint32
		ids []int
	}
	byFP := map[uint32][]int{}
	for w, ids := range classes {
		if len(ids) != len(sizes) {
			return nil, fmt.Errorf("clusters: %q has %d classes, want %d", w, len(ids), len(sizes))
		}
		for k, id := range ids {
			if id < 0 || id >= sizes[k] {
				return nil, fmt.Errorf("clusters: %q class %d at level %d of %d", w, id, k, sizes[k])
			}
		}
		fp := fingerprint(Lower(w))
		if old, ok := byFP[fp]; ok && slices.Compare(old, ids) < 0 {
			continue // two words with one fingerprint: keep one, the same one every run
		}
		byFP[fp] = ids
	}
	entries := make([]entry, 0, len(byFP))
	for fp, ids := range byFP {
		entries = append(entries, entry{fp, ids})
	}
	slices.SortFunc(entries, func(a, b entry) int { return int(a.fp) - int(b.fp) })
	c := &Clusters{levels: len(sizes), sizes: slices.Clone(sizes)}
	for _, e := range entries {
		c.fps = append(c.fps, e.fp)
		for _, id := range e.ids {
			c.ids = append(c.ids, uint16(id+1))
		}
	}
	c.buildIndex()
	return c, nil
}

func (c *Clusters) buildIndex() {
	c.index = make([]uint32, 1<<indexBits+1)
	j := 0
	for b := 0; b <= 1<<indexBits; b++ {
		for j < len(c.fps) && int(c.fps[j]>>(fpBits-indexBits)) < b {
			j++
		}
		c.index[b] = uint32(j)
	}
}

// Len is the number of words with classes.
func (c *Clusters) Len() int {
	if c == nil {
		return 0
	}
	return len(c.fps)
}

// Levels is the number of granularities.
func (c *Clusters) Levels() int {
	if c == nil {
		return 0
	}
	return c.levels
}

// lookup returns the classes + 1 of the word with fingerprint fp at each level, or nil when the
// word has none.
func (c *Clusters) lookup(fp uint32) []uint16 {
	if c == nil || len(c.fps) == 0 {
		return nil
	}
	b := fp >> (fpBits - indexBits)
	lo, hi := int(c.index[b]), int(c.index[b+1])
	i, ok := slices.BinarySearch(c.fps[lo:hi], fp)
	if !ok {
		return nil
	}
	i += lo
	return c.ids[i*c.levels : i*c.levels+c.levels]
}

// Classes returns the class of the lower-case word at each level (-1 where it has none).
func (c *Clusters) Classes(lower string) []int {
	out := make([]int, c.Levels())
	ids := c.lookup(fingerprint(lower))
	for k := range out {
		out[k] = -1
		if ids != nil {
			out[k] = int(ids[k]) - 1
		}
	}
	return out
}

// marshal returns the clusters section of a model file, gzip-compressed: the number of levels
// and each level's number of classes, the number of words, then each word's fingerprint as the
// uvarint gap from the previous one followed by its classes + 1 as uvarints.
func (c *Clusters) marshal() ([]byte, error) {
	b := binary.AppendUvarint(nil, uint64(c.levels))
	for _, s := range c.sizes {
		b = binary.AppendUvarint(b, uint64(s))
	}
	b = binary.AppendUvarint(b, uint64(len(c.fps)))
	prev := uint32(0)
	for i, fp := range c.fps {
		b = binary.AppendUvarint(b, uint64(fp-prev))
		prev = fp
		for _, id := range c.ids[i*c.levels : i*c.levels+c.levels] {
			b = binary.AppendUvarint(b, uint64(id))
		}
	}
	return gzipBytes(b)
}

// unmarshalClusters reads what marshal wrote.
func unmarshalClusters(data []byte) (*Clusters, error) {
	br, err := gunzip(data)
	if err != nil {
		return nil, fmt.Errorf("clusters: %w", err)
	}
	levels, err := binary.ReadUvarint(br)
	if err != nil || levels < 1 || levels > MaxClusterLevels {
		return nil, errors.New("clusters: bad number of levels")
	}
	c := &Clusters{levels: int(levels)}
	for range levels {
		s, err := binary.ReadUvarint(br)
		if err != nil || s < 1 || s >= 1<<16 {
			return nil, errors.New("clusters: bad number of classes")
		}
		c.sizes = append(c.sizes, int(s))
	}
	n, err := binary.ReadUvarint(br)
	if err != nil || n > 1<<22 {
		return nil, errors.New("clusters: bad word count")
	}
	c.fps = make([]uint32, n)
	c.ids = make([]uint16, int(n)*c.levels)
	prev := uint64(0)
	for i := range c.fps {
		d, err := binary.ReadUvarint(br)
		if err != nil {
			return nil, fmt.Errorf("clusters: word %d: %w", i, err)
		}
		if i > 0 && d == 0 {
			return nil, errors.New("clusters: words not in order")
		}
		prev += d
		if prev >= 1<<fpBits {
			return nil, errors.New("clusters: fingerprint out of range")
		}
		c.fps[i] = uint32(prev)
		for k := range c.levels {
			id, err := binary.ReadUvarint(br)
			if err != nil || id < 1 || id > uint64(c.sizes[k]) {
				return nil, fmt.Errorf("clusters: word %d: bad class", i)
			}
			c.ids[i*c.levels+k] = uint16(id)
		}
	}
	if _, err := br.ReadByte(); err != io.EOF {
		return nil, errors.New("clusters: data after the words")
	}
	c.buildIndex()
	return c, nil
}
