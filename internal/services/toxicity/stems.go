package toxicity

// stemSet holds word beginnings of at least four bytes (the polarity list's and the reporting
// list's stems, "dégueul*"), each with a value, and finds the longest one a word starts with:
// one lookup of the word's first four bytes dismisses most words.
type stemSet[C comparable] struct {
	values map[string]C
	heads  map[[4]byte]bool // the first four bytes of every stem
	max    int              // the longest stem, in bytes
}

// set gives stem (at least four bytes) the value c.
func (s *stemSet[C]) set(stem string, c C) {
	if s.values == nil {
		s.values, s.heads = map[string]C{}, map[[4]byte]bool{}
	}
	s.values[stem] = c
	s.heads[[4]byte([]byte(stem[:4]))] = true
	s.max = max(s.max, len(stem))
}

// longest returns the value of the longest stem word starts with, or the zero value.
func (s *stemSet[C]) longest(word []byte) C {
	var zero C
	if len(word) < 4 || !s.heads[[4]byte(word[:4])] {
		return zero
	}
	for n := min(len(word), s.max); n >= 4; n-- {
		if c, ok := s.values[string(word[:n])]; ok {
			return c
		}
	}
	return zero
}
