package names

import "math"

// maxRunOn is how many words after a candidate the decoder also scores: a word that is no
// candidate itself ("de", "la", a lower-case surname) can only continue a name that began at most
// this many tokens before it.
const maxRunOn = 3

// markScored sets scored on the tokens the decoder scores: the candidates and the words (not on
// a log line) at most maxRunOn tokens after one, each joined to the one before it by a space, a
// hyphen or a full stop. Every other token is outside a name.
func markScored(info []tokInfo) {
	run := maxRunOn + 1
	for i := range info {
		ti := &info[i]
		switch {
		case ti.candidate:
			run = 0
		case ti.kind == Word && !ti.log && !ti.handle && ti.gap&^(GapDash|GapSent) == 0:
			// Only a space, a hyphen or a full stop (after an initial) joins a word to the
			// name before it (see Spans); after other punctuation a word is no continuation.
			run++
		default:
			run = maxRunOn + 1
		}
		ti.scored = ti.candidate || run <= maxRunOn
	}
}

// number is the type of a score: int64 at run time (int16 weights), float64 in training.
type number interface{ int64 | float64 }

// viterbi returns the best labels of the tokens of f under the first-order model whose scores
// obs and trans give: obs(i) scores each label of token i from what the token and its
// neighbours look like, trans(i, y1) each label of token i after label y1. I may only follow B
// or I; a word in another script that is no candidate may not be B (see tokInfo.noBegin); tokens
// that are not scored are O. bp is scratch space of one entry per token.
func viterbi[T number](f *featurizer, bp [][numLabels]uint8, obs func(i int) [numLabels]T,
	trans func(i, y1 int) [numLabels]T, check func(i int) error) ([]uint8, error) {
	n := len(f.info)
	var negInf T
	switch any(negInf).(type) {
	case int64:
		negInf = T(math.MinInt64 / 4)
	default:
		negInf = T(math.Inf(-1))
	}
	prev := [numLabels]T{0, negInf, negInf}
	for i := range n {
		if check != nil {
			if err := check(i); err != nil {
				return nil, err
			}
		}
		var cur [numLabels]T
		if !f.info[i].scored {
			b := argmax(prev)
			cur = [numLabels]T{prev[b], negInf, negInf}
			bp[i] = [numLabels]uint8{uint8(b), 0, 0}
			prev = cur
			continue
		}
		o := obs(i)
		cur = [numLabels]T{negInf, negInf, negInf}
		for y1 := range numLabels {
			if prev[y1] == negInf {
				continue
			}
			t := trans(i, y1)
			for y := range numLabels {
				if y == I && y1 == O || y == B && f.info[i].noBegin() {
					continue
				}
				if v := prev[y1] + o[y] + t[y]; v > cur[y] {
					cur[y], bp[i][y] = v, uint8(y1)
				}
			}
		}
		prev = cur
	}
	labels := make([]uint8, n)
	y := argmax(prev)
	for i := n - 1; i >= 0; i-- {
		labels[i] = uint8(y)
		y = int(bp[i][y])
	}
	return labels, nil
}

// argmax returns the label with the highest score, the first on a tie.
func argmax[T number](s [numLabels]T) int {
	b := 0
	for y := 1; y < numLabels; y++ {
		if s[y] > s[b] {
			b = y
		}
	}
	return b
}

// decode labels the tokens of f with the model's weights (see viterbi).
func (m *Model) decode(f *featurizer, check func(i int) error) ([]uint8, error) {
	markScored(f.info)
	sum := func(feats []uint32) [numLabels]int64 {
		var s [numLabels]int64
		for _, b := range feats {
			w := m.weights[int(b)*numLabels : int(b)*numLabels+numLabels]
			s[O] += int64(w[O])
			s[B] += int64(w[B])
			s[I] += int64(w[I])
		}
		return s
	}
	bp := make([][numLabels]uint8, len(f.info))
	bias := int64(math.Round(m.biasB * float64(m.scale)))
	return viterbi(f, bp,
		func(i int) [numLabels]int64 {
			s := sum(f.obsFeatures(i))
			s[B] += bias
			return s
		},
		func(i, y1 int) [numLabels]int64 { return sum(f.transFeatures(i, y1)) },
		check)
}
