package textclass

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Spec says how a text becomes hashed features and windows. It is stored in the model file, so
// a model is always scored with the features it was trained on.
type Spec struct {
	// WordNgrams is the longest word n-gram used: 1 for single words, 2 adds pairs of adjacent
	// words, 3 adds triples (0 turns word features off).
	WordNgrams int `json:"word_ngrams"`
	// CharMin and CharMax bound the character n-grams taken inside each word, with "<" and ">"
	// marking its ends (so "<ig" and "re>" tell a word's start and end); 0 turns them off.
	CharMin int `json:"char_min"`
	CharMax int `json:"char_max"`
	// Window is how many words one scoring window holds, and Stride how many words apart two
	// windows start. A text of at most Window words is one window.
	Window int `json:"window"`
	Stride int `json:"stride"`
	// DecodeBlobs also scores the text of base64 and hex blobs that decode to readable text
	// (textnorm.DecodeBlobs); their words carry textnorm.FlagEncoded.
	DecodeBlobs bool `json:"decode_blobs"`
	// LongSegment, when above 0, gives every word of a segment (the text, or a decoded blob) of
	// at least this many words a second copy of its word n-gram features, hashed apart: the model
	// can then weigh a phrase differently inside a long document (an e-mail, a web page) than in a
	// short message, as it must for an instruction hidden in a document.
	LongSegment int `json:"long_segment,omitempty"`
	// Script, when set, gives every window one feature per script among its words (the script
	// of a word's first letter: Latin, Cyrillic, Greek, Arabic, Hebrew, Devanagari, Bengali,
	// Thai, Han, kana, Hangul, or none), valued at the share of the window's words in that
	// script, outside the square-root normalization of the other features. A model trained on
	// several scripts can then learn an offset per script that does not grow with the window's
	// length, instead of moving its bias (and with it every other language's scores).
	Script bool `json:"script,omitempty"`
	// NormPower, when above 0, is the power p of a window's total feature count that divides its
	// features' counts (value = count / total^p) in place of the square root (0 means 0.5, and
	// is how every model without the option is stored). A window's raw score is the bias plus
	// its weights' sum over total^p, so with p = 0.5 a text whose words all lean slightly one way
	// scores further that way the longer its window is (the sum grows with the length, the
	// divisor with its square root); p = 1 makes the score the mean weight, the same for three
	// copies of a note as for one; values in between trade the two.
	NormPower float64 `json:"norm_power,omitempty"`
	// NormKnee, when above 0, splits the normalization at a window's total feature count K:
	// a window of at least K feature occurrences divides its counts by total^p as above, a
	// smaller one by total * K^(p-1), which meets it at K. Below the knee the raw score is the
	// bias plus the mean weight times K^(1-p), the same for one, two or three copies of a short
	// note; above it the score still grows with the window's length as before, so an
	// instruction hidden in a full window of a long document is not averaged away. 0 (how every
	// model without the option is stored) means no knee.
	NormKnee int `json:"norm_knee,omitempty"`

	// shield (issue 32). Zero values keep the behaviour above exactly.

	// Units, when set, scores sentence units instead of Window/Stride windows: the text (and each
	// decoded blob) is cut into units at sentence ends (see nextUnit) and each piece is
	// normalized on its own; word n-grams do not reach across a unit's start. The windows are
	// every run of up to UnitRun consecutive units holding at most UnitWords words, and a unit
	// longer than UnitWords is covered by windows of UnitWords words, UnitWords/2 apart. The
	// score is the highest window's, so an attack of a few sentences scores the same alone as
	// inside a long harmless text, and the window's length is bounded whatever the text's.
	Units bool `json:"units,omitempty"`
	// UnitWords bounds a unit window's words (required with Units).
	UnitWords int `json:"unit_words,omitempty"`
	// UnitRun is the most consecutive units one window joins (required with Units).
	UnitRun int `json:"unit_run,omitempty"`
}

// Validate reports the first way s is unusable.
func (s Spec) Validate() error {
	switch {
	case s.WordNgrams < 0 || s.WordNgrams > 3:
		return fmt.Errorf("textclass: word_ngrams %d, want 0 to 3", s.WordNgrams)
	case s.CharMin < 0 || s.CharMax > 8 || s.CharMin > s.CharMax || (s.CharMin == 0) != (s.CharMax == 0):
		return fmt.Errorf("textclass: char n-grams %d to %d, want 1 <= min <= max <= 8 or both 0", s.CharMin, s.CharMax)
	case s.WordNgrams == 0 && s.CharMax == 0:
		return errors.New("textclass: no features")
	case s.Window < 1 || s.Stride < 1 || s.Stride > s.Window:
		return fmt.Errorf("textclass: window %d, stride %d, want 1 <= stride <= window", s.Window, s.Stride)
	case s.LongSegment < 0:
		return fmt.Errorf("textclass: long_segment %d", s.LongSegment)
	case !(s.NormPower >= 0 && s.NormPower <= 1):
		return fmt.Errorf("textclass: norm_power %g, want 0 (square root) or up to 1", s.NormPower)
	case s.NormKnee < 0 || s.NormKnee > 1<<20:
		return fmt.Errorf("textclass: norm_knee %d, want 0 (none) to %d", s.NormKnee, 1<<20)
	case s.Units && (s.UnitWords < 2 || s.UnitWords > 1024 || s.UnitRun < 1 || s.UnitRun > 16):
		return fmt.Errorf("textclass: units of %d words, runs of %d units, want 2 to 1024 and 1 to 16", s.UnitWords, s.UnitRun)
	case !s.Units && (s.UnitWords != 0 || s.UnitRun != 0):
		return errors.New("textclass: unit_words and unit_run need units")
	}
	return nil
}

// Feature is one hashed feature of a window with its value: its count in the window divided by
// the square root of the window's total feature count (its Spec.NormPower-th power when that is
// set; see Spec.NormKnee for windows below the knee). A head with b bits looks it up at ID(b).
type Feature struct {
	Hash  uint64
	Value float32
}

// divisor returns what a window of count feature occurrences divides its counts by:
// count^NormPower, computed with math.Sqrt when NormPower is 0 or 0.5 so that such models score
// to the same bits as before the option existed; below a NormKnee of K, count * K^(NormPower-1)
// instead. A count below 1 counts as 1.
func (s Spec) divisor(count int) float64 {
	c := float64(max(count, 1))
	if s.NormKnee > 0 && count < s.NormKnee {
		k := float64(s.NormKnee)
		return c * s.power(k) / k
	}
	return s.power(c)
}

// power returns c^NormPower (the square root when NormPower is 0 or 0.5).
func (s Spec) power(c float64) float64 {
	if s.NormPower == 0 || s.NormPower == 0.5 {
		return math.Sqrt(c)
	}
	return math.Pow(c, s.NormPower)
}

// ID is the feature's slot in a head's table of 1<<bits weights.
func (f Feature) ID(bits int) uint32 { return slot(f.Hash, bits) }

func slot(h uint64, bits int) uint32 { return uint32(h >> (64 - bits)) }

// Hashing: FNV-1a over the bytes, with a distinct seed per feature kind, then a 64-bit finalizer
// (splitmix64) so that the top bits used as slots are well mixed. These constants are part of
// the model format: changing them invalidates every trained model.
const (
	fnvOffset   = 14695981039346656037
	fnvPrime    = 1099511628211
	seedWord    = 0x9E3779B97F4A7C15
	seedChar    = 0xC2B2AE3D27D4EB4F
	seedUnigram = 0x165667B19E3779F9
	seedBigram  = 0xD6E8FEB86659FD93
	seedTrigram = 0xA0761D6478BD642F
	seedLong    = 0xE7037ED1A0B428DB
	seedScript  = 0x8EBC6AF09C88C6E3
)

// scripts are the scripts Spec.Script tells apart, in the order of their ids (0 is none: a word
// without a letter of these). Kana covers Hiragana and Katakana.
var scripts = []*unicode.RangeTable{unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Arabic, unicode.Hebrew,
	unicode.Devanagari, unicode.Bengali, unicode.Thai, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul}

// scriptHash is the hash of the script feature of word (see Spec.Script).
func scriptHash(word []byte) uint64 { return finalize(seedScript ^ scriptOf(word)) }

// scriptOf returns the id of the script of word's first letter (see scripts; Katakana counts
// as Hiragana), 0 when it has none. It looks at no more than the word's first 8 runes.
func scriptOf(word []byte) uint64 {
	for i, n := 0, 0; i < len(word) && n < 8; n++ {
		c := word[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' {
				return 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(word[i:])
		i += size
		if !unicode.IsLetter(r) {
			continue
		}
		for k, t := range scripts {
			if unicode.Is(t, r) {
				if t == unicode.Katakana {
					k-- // kana: one script
				}
				return uint64(k + 1)
			}
		}
		return 0
	}
	return 0
}

func finalize(h uint64) uint64 {
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return h
}

// wordHash identifies a word; the word n-gram features are built from it.
func wordHash(w []byte) uint64 {
	h := uint64(fnvOffset ^ seedWord)
	for _, c := range w {
		h ^= uint64(c)
		h *= fnvPrime
	}
	return h
}

// featurizer turns the words of a segment into feature hashes. It keeps scratch buffers, so one
// featurizer serves one goroutine.
type featurizer struct {
	spec   Spec
	marked []byte // "<" + word + ">"
	starts []int  // rune offsets in marked, plus len(marked)
}

// appendWord appends the hashes of the features word contributes, given the word hashes of the
// word itself (h0) and of the one and two words before it in the same segment (h1, h2; 0 when
// there is none), and whether the segment is long (see Spec.LongSegment). Word n-grams are
// credited to their last word.
func (f *featurizer) appendWord(dst []uint64, word []byte, h0, h1, h2 uint64, long bool) []uint64 {
	s := f.spec
	first := len(dst)
	if s.WordNgrams >= 1 {
		dst = append(dst, finalize(h0^seedUnigram))
	}
	if s.WordNgrams >= 2 && h1 != 0 {
		dst = append(dst, finalize(finalize(h1^seedBigram)^h0))
	}
	if s.WordNgrams >= 3 && h2 != 0 && h1 != 0 {
		dst = append(dst, finalize(finalize(finalize(h2^seedTrigram)^h1)^h0))
	}
	if long {
		for _, h := range dst[first:] {
			dst = append(dst, finalize(h^seedLong))
		}
	}
	if s.CharMax == 0 {
		return dst
	}
	f.marked = append(append(append(f.marked[:0], '<'), word...), '>')
	if isASCII(word) {
		return f.appendCharASCII(dst)
	}
	return f.appendCharRunes(dst)
}

// appendCharASCII appends the character n-gram hashes of f.marked, which holds only ASCII
// bytes: every character is one byte, so the n-grams are byte ranges. For each start it hashes
// the first CharMin-1 bytes, then emits one feature per further byte up to CharMax: the same
// features in the same order as appendCharRunes, with fewer steps.
func (f *featurizer) appendCharASCII(dst []uint64) []uint64 {
	s := f.spec
	m := f.marked
	n := len(m)
	if n >= s.CharMin {
		dst = slices.Grow(dst, (n-s.CharMin+1)*(s.CharMax-s.CharMin+1))
	}
	for a := 0; a+s.CharMin <= n; a++ {
		h := uint64(fnvOffset ^ seedChar)
		b := a
		for ; b < a+s.CharMin-1; b++ {
			h ^= uint64(m[b])
			h *= fnvPrime
		}
		for end := min(n, a+s.CharMax); b < end; b++ {
			h ^= uint64(m[b])
			h *= fnvPrime
			dst = append(dst, finalize(h))
		}
	}
	return dst
}

// appendCharRunes appends the character n-gram hashes of f.marked, any UTF-8: n-grams of
// CharMin to CharMax code points, by start, then by length.
func (f *featurizer) appendCharRunes(dst []uint64) []uint64 {
	s := f.spec
	f.starts = f.starts[:0]
	for i := 0; i < len(f.marked); {
		f.starts = append(f.starts, i)
		if f.marked[i] < utf8.RuneSelf {
			i++
		} else {
			_, n := utf8.DecodeRune(f.marked[i:])
			i += n
		}
	}
	n := len(f.starts)
	f.starts = append(f.starts, len(f.marked))
	for a := 0; a < n; a++ {
		h := uint64(fnvOffset ^ seedChar)
		for b := a; b < n && b-a < s.CharMax; b++ {
			for _, c := range f.marked[f.starts[b]:f.starts[b+1]] {
				h ^= uint64(c)
				h *= fnvPrime
			}
			if b-a+1 >= s.CharMin {
				dst = append(dst, finalize(h))
			}
		}
	}
	return dst
}

// isASCII reports whether b has only ASCII bytes.
func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// segment is a range of words scored on its own: the text, or one decoded blob.
type segment struct{ first, end int }

// long reports whether the segment counts as long under spec.
func (sg segment) long(spec Spec) bool {
	return spec.LongSegment > 0 && sg.end-sg.first >= spec.LongSegment
}

// prepared is a text normalized into words, with each word's hash and the segments.
type prepared struct {
	words    textnorm.Words
	hashes   []uint64
	segments []segment
	feats    []uint64 // scratch
	fz       featurizer
	// ustart holds, with Spec.Units, the index of the first word of each word's unit.
	ustart []int32
}

// prepare normalizes text (and, when the spec says so, the readable text of its encoded blobs)
// into p.
func (p *prepared) prepare(ctx context.Context, spec Spec, text string) error {
	p.words.Reset()
	p.segments = p.segments[:0]
	p.ustart = p.ustart[:0]
	p.fz.spec = spec
	if err := p.normalize(ctx, spec, text, 0); err != nil {
		return err
	}
	p.segments = append(p.segments, segment{0, p.words.Len()})
	if spec.DecodeBlobs {
		for _, blob := range textnorm.DecodeBlobs(text) {
			first := p.words.Len()
			if err := p.normalize(ctx, spec, blob, textnorm.FlagEncoded); err != nil {
				return err
			}
			if p.words.Len() > first {
				p.segments = append(p.segments, segment{first, p.words.Len()})
			}
		}
	}
	p.hashes = p.hashes[:0]
	for i := range p.words.Len() {
		p.hashes = append(p.hashes, wordHash(p.words.Word(i)))
	}
	return nil
}

// normalize appends the normal form of s to p's words: at once, or with Spec.Units unit by
// unit (nextUnit), recording each word's unit start in p.ustart. It checks ctx as
// textnorm.Normalize does, and between units every 4,096 bytes.
func (p *prepared) normalize(ctx context.Context, spec Spec, s string, extra textnorm.Flag) error {
	if !spec.Units {
		return textnorm.Normalize(ctx, s, &p.words, extra)
	}
	since := 0
	for rest := s; rest != ""; {
		var piece string
		piece, rest = nextUnit(rest)
		if since += len(piece); since >= checkEvery {
			if err := ctx.Err(); err != nil {
				return err
			}
			since = 0
		}
		first := p.words.Len()
		if err := textnorm.Normalize(ctx, piece, &p.words, extra); err != nil {
			return err
		}
		for range p.words.Len() - first {
			p.ustart = append(p.ustart, int32(first))
		}
	}
	return nil
}

// checkEvery is how many bytes of text normalize handles between two context checks.
const checkEvery = 4096

// nextUnit returns the first sentence unit of s and the rest: the unit ends after a line break,
// after a run of sentence-ending marks (. ! ? …, with closing quotes and brackets) followed by a
// space or the end, or after a full-width 。！？.
func nextUnit(s string) (unit, rest string) {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case '\n':
				return s[:i+1], s[i+1:]
			case '.', '!', '?':
				j := i + 1
				for j < len(s) && (s[j] == '.' || s[j] == '!' || s[j] == '?' || s[j] == '"' || s[j] == '\'' || s[j] == ')' || s[j] == ']') {
					j++
				}
				if j == len(s) || s[j] == ' ' || s[j] == '\t' || s[j] == '\n' || s[j] == '\r' {
					return s[:j], s[j:]
				}
				i = j
				continue
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch r {
		case '。', '！', '？', '…':
			return s[:i+size], s[i+size:]
		}
		i += size
	}
	return s, ""
}

// wordFeatures returns the feature hashes word i of segment sg contributes (valid until the next
// call).
func (p *prepared) wordFeatures(sg segment, i int) []uint64 {
	var h1, h2 uint64
	first := sg.first
	if p.fz.spec.Units {
		first = max(first, int(p.ustart[i]))
	}
	if i-1 >= first {
		h1 = p.hashes[i-1]
	}
	if i-2 >= first {
		h2 = p.hashes[i-2]
	}
	p.feats = p.fz.appendWord(p.feats[:0], p.words.Word(i), p.hashes[i], h1, h2, sg.long(p.fz.spec))
	return p.feats
}

// spans returns the word ranges scored in segment sg: the unit windows with Spec.Units
// (unitWindows), windows otherwise.
func (p *prepared) spans(spec Spec, sg segment, dst [][2]int) [][2]int {
	if spec.Units {
		return p.unitWindows(spec, sg, dst)
	}
	return windows(spec, sg, dst)
}

// unitWindows returns the word ranges scored in segment sg with Spec.Units: every run of up to
// UnitRun consecutive units of at most UnitWords words in all, and a unit longer than UnitWords
// covered by ranges of UnitWords words starting UnitWords/2 apart, the last one ending at the
// unit's end.
func (p *prepared) unitWindows(spec Spec, sg segment, dst [][2]int) [][2]int {
	w := spec.UnitWords
	if sg.first == sg.end {
		return append(dst, [2]int{sg.first, sg.end})
	}
	for a := sg.first; a < sg.end; {
		b := p.unitEnd(sg, a)
		if b-a > w {
			for s := a; ; s += w / 2 {
				if s+w >= b {
					dst = append(dst, [2]int{b - w, b})
					break
				}
				dst = append(dst, [2]int{s, s + w})
			}
			a = b
			continue
		}
		dst = append(dst, [2]int{a, b})
		end := b
		for k := 1; k < spec.UnitRun && end < sg.end; k++ {
			next := p.unitEnd(sg, end)
			if next-a > w {
				break
			}
			dst = append(dst, [2]int{a, next})
			end = next
		}
		a = b
	}
	return dst
}

// unitEnd returns the end of the unit that starts at word a of segment sg.
func (p *prepared) unitEnd(sg segment, a int) int {
	b := a + 1
	for b < sg.end && int(p.ustart[b]) != b {
		b++
	}
	return b
}

// windows returns the word ranges scored in segment sg: one range when it has at most
// spec.Window words, otherwise ranges of spec.Window words starting every spec.Stride words,
// the last one ending at the segment's end.
func windows(spec Spec, sg segment, dst [][2]int) [][2]int {
	n := sg.end - sg.first
	if n <= spec.Window {
		return append(dst, [2]int{sg.first, sg.end})
	}
	for start := 0; ; start += spec.Stride {
		if start+spec.Window >= n {
			return append(dst, [2]int{sg.end - spec.Window, sg.end})
		}
		dst = append(dst, [2]int{sg.first + start, sg.first + start + spec.Window})
	}
}

// Window is one window of a text as a model sees it, with its features: what a trainer needs to
// fit weights that score exactly as Model.Score will.
type Window struct {
	// Features are the window's distinct hashed features, sorted by Hash.
	Features []Feature
	// Count is the number of feature occurrences in the window (the divisor is its square root,
	// or its Spec.NormPower-th power, or below Spec.NormKnee proportional to it).
	Count int
	// Flags are the textnorm flags of the window's words, ORed.
	Flags textnorm.Flag
	// Segment is 0 for the text itself and i for its i-th decoded blob; Start and End are the
	// window's word range [Start, End) in the normalized text (segments follow each other).
	Segment    int
	Start, End int
	// Text is the window's words in normal form.
	Text string
}

// Windows returns every window spec scores in text, with its features. It checks ctx as
// Normalize does and between windows.
func (s Spec) Windows(ctx context.Context, text string) ([]Window, error) {
	if err := s.Validate(); err != nil {
		return nil, err
	}
	var p prepared
	if err := p.prepare(ctx, s, text); err != nil {
		return nil, err
	}
	var out []Window
	var spans [][2]int
	counts, shares := map[uint64]int{}, map[uint64]int{}
	for si, sg := range p.segments {
		spans = p.spans(s, sg, spans[:0])
		for _, sp := range spans {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			clear(counts)
			clear(shares)
			w := Window{Segment: si, Start: sp[0], End: sp[1]}
			for i := sp[0]; i < sp[1]; i++ {
				for _, h := range p.wordFeatures(sg, i) {
					counts[h]++
					w.Count++
				}
				if s.Script {
					shares[scriptHash(p.words.Word(i))]++
				}
				w.Flags |= p.words.Flags[i]
			}
			if sp[1] > sp[0] {
				w.Text = string(p.words.Text[p.words.Start(sp[0]):p.words.Ends[sp[1]-1]])
			}
			norm := 1 / s.divisor(w.Count)
			w.Features = make([]Feature, 0, len(counts))
			for h, c := range counts {
				w.Features = append(w.Features, Feature{Hash: h, Value: float32(float64(c) * norm)})
			}
			for h, c := range shares {
				// A script hash that collides with an n-gram's adds to its value, as in a head's
				// table the two share a slot anyway.
				v := float32(float64(c) / float64(sp[1]-sp[0]))
				if k := slices.IndexFunc(w.Features, func(f Feature) bool { return f.Hash == h }); k >= 0 {
					w.Features[k].Value += v
				} else {
					w.Features = append(w.Features, Feature{Hash: h, Value: v})
				}
			}
			sort.Slice(w.Features, func(a, b int) bool { return w.Features[a].Hash < w.Features[b].Hash })
			out = append(out, w)
		}
	}
	return out, nil
}
