package model

import (
	"context"
	"errors"
	"math"
	"slices"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of the work one detection does.
const (
	// SampleAbove is the length in bytes above which only samples of the text are scored. Sixty
	// or so words decide a language as well as a page does, and every scored letter costs a
	// handful of lookups in a table far larger than the CPU's caches.
	SampleAbove = 512
	// Windows is how many samples of a long text are scored, evenly spaced over it.
	Windows = 4
	// WindowBytes is the length of one sample.
	WindowBytes = 128
	// MaxWordRunes bounds the letters of a word that are scored; the rest of a longer run of
	// letters is skipped.
	MaxWordRunes = 64
	// checkEvery is how many bytes the script pass reads between looks at the context.
	checkEvery = 4096
)

// Languages beyond 128 do not fit the candidate sets.
const maxLangs = 128

// Set is a set of language indices.
type Set [2]uint64

// Add adds language l.
func (s *Set) Add(l int) { s[l>>6] |= 1 << (l & 63) }

// Has reports whether l is in s.
func (s Set) Has(l int) bool { return s[l>>6]&(1<<(l&63)) != 0 }

// Empty reports whether s has no language.
func (s Set) Empty() bool { return s[0]|s[1] == 0 }

// Scored is one language with its confidence.
type Scored struct {
	Lang       int
	Confidence float64
}

// Result is what Detect found.
type Result struct {
	// Ranked holds the candidates best first with their confidences (they sum to at most 1);
	// empty when the text has no letters of a script any candidate is written in.
	Ranked []Scored
	// Letters is how many letters were scored.
	Letters int
	// ByScript is true when the script alone decided the answer.
	ByScript bool
}

// Detector identifies languages with a model plus the scripts that belong to a single language.
// It is read-only and safe for concurrent use.
type Detector struct {
	m *Model
	// codes are the languages: the model's first, then the ones known by script alone.
	codes   []string
	scripts []uint32 // per language, bit 1<<Script for each script it is written in
	// byScript is the one language written in a script, or -1.
	byScript [NumScripts]int
	// langsOf is the set of languages written in each script.
	langsOf [NumScripts]Set
}

// ScriptLanguages are languages told apart by their script alone: no other supported language
// is written in it. Japanese is here for kana; Han without kana is scored by the model.
var ScriptLanguages = map[Script]string{
	Greek: "el", Armenian: "hy", Georgian: "ka", Hebrew: "he", Bengali: "bn", Gurmukhi: "pa",
	Gujarati: "gu", Oriya: "or", Tamil: "ta", Telugu: "te", Kannada: "kn", Malayalam: "ml",
	Sinhala: "si", Thai: "th", Myanmar: "my", Khmer: "km", Ethiopic: "am", Hangul: "ko", Kana: "ja",
}

// NewDetector builds a detector on m.
func NewDetector(m *Model) (*Detector, error) {
	d := &Detector{m: m}
	d.codes = slices.Clone(m.Langs)
	d.scripts = slices.Clone(m.Scripts)
	for s := range d.byScript {
		d.byScript[s] = -1
	}
	for s := Script(0); s < NumScripts; s++ {
		code, ok := ScriptLanguages[s]
		if !ok {
			continue
		}
		i := slices.Index(d.codes, code)
		if i < 0 {
			i = len(d.codes)
			d.codes = append(d.codes, code)
			d.scripts = append(d.scripts, 0)
		}
		d.scripts[i] |= 1 << s
		d.byScript[s] = i
	}
	if len(d.codes) > maxLangs {
		return nil, errors.New("model: too many languages")
	}
	for l, mask := range d.scripts {
		for s := Script(0); s < NumScripts; s++ {
			if mask&(1<<s) != 0 {
				d.langsOf[s].Add(l)
			}
		}
	}
	return d, nil
}

// Codes returns the ISO 639-1 code of every language, by index.
func (d *Detector) Codes() []string { return slices.Clone(d.codes) }

// All returns the set of every language.
func (d *Detector) All() Set {
	var s Set
	for l := range d.codes {
		s.Add(l)
	}
	return s
}

// Detect identifies the language of text among the candidates. It reads the whole text once to
// count letters by script, then scores the words of the chosen script (all of a short text,
// evenly spaced samples of a long one), so its time is linear in the text and bounded by a
// constant beyond SampleAbove bytes for the scoring. It returns ctx's error when ctx ends.
func (d *Detector) Detect(ctx context.Context, text string, cand Set) (Result, error) {
	var counts [NumScripts]int
	for start := 0; start < len(text); start += checkEvery {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		end := min(start+checkEvery, len(text))
		// Chunks may cut a rune: skip its continuation bytes at the start, decode past the end.
		i := start
		for i < end && i > 0 && !utf8.RuneStart(text[i]) {
			i++
		}
		for i < end {
			c := text[i]
			if c < utf8.RuneSelf {
				if c|0x20 >= 'a' && c|0x20 <= 'z' {
					counts[Latin]++
				}
				i++
				continue
			}
			r, n := utf8.DecodeRuneInString(text[i:])
			counts[ScriptOf(r)]++
			i += n
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	script := d.chooseScript(&counts, cand)
	if script == NoScript {
		return Result{}, nil
	}
	if script == Han && counts[Kana] > 0 && 20*counts[Kana] >= counts[Han] && cand.Has(d.byScript[Kana]) {
		script = Kana // Han with kana is Japanese
	}
	if l := d.byScript[script]; l >= 0 && script != Han {
		return Result{Ranked: []Scored{{l, 1}}, Letters: counts[script], ByScript: true}, nil
	}
	var allowed Set
	for i := range allowed {
		allowed[i] = cand[i] & d.langsOf[script][i]
	}
	return d.score(ctx, text, script, counts[script], allowed)
}

// cjkWeight is what one Han, kana or Hangul character counts for against letters of alphabets
// when choosing the script: such a character carries about as much as a short word.
const cjkWeight = 3

// chooseScript returns the script with the most letters among those some candidate is written
// in (Han, kana and Hangul characters counting cjkWeight each; the lower Script on a tie), or
// NoScript.
func (d *Detector) chooseScript(counts *[NumScripts]int, cand Set) Script {
	best, bestN := NoScript, 0
	for s := Script(1); s < NumScripts; s++ {
		n := counts[s]
		if s == Han {
			n += counts[Kana] // Japanese mixes both; see Detect
		}
		if s.SingleCharWords() {
			n *= cjkWeight
		}
		if n <= bestN {
			continue
		}
		ls := d.langsOf[s]
		if (ls[0]&cand[0])|(ls[1]&cand[1]) == 0 {
			continue
		}
		best, bestN = s, n
	}
	return best
}

// scorer adds up the model's values per language, in quantisation steps: the log probability
// of the text under each language, up to a constant all languages share.
type scorer struct {
	m       *Model
	budget  int // letters after which words are no longer scored; 0 = no limit
	sum     [maxLangs]int32
	letters int
	buf     [MaxWordRunes*utf8.UTFMax + 2]byte
	offs    [MaxWordRunes + 3]int
	// Single characters repeat (a text has few distinct letters) and their postings are the
	// longest, so they are counted first and added once per distinct character.
	uni  [uniSlots]uniCount
	nUni int
	// words counts the words scored; alone is the hash of the first's one-word key (oneWordHash).
	words int
	alone uint64
}

// uniCount is a single character's hash and how often it occurred.
type uniCount struct {
	h uint64
	n int32
}

// uniSlots is the size of the table of single characters; it is emptied into the sums when it
// is three quarters full.
const uniSlots = 256

// unigram counts one occurrence of the single character with hash h.
func (sc *scorer) unigram(h uint64) {
	i := h & (uniSlots - 1)
	for sc.uni[i].n != 0 {
		if sc.uni[i].h == h {
			sc.uni[i].n++
			return
		}
		i = (i + 1) & (uniSlots - 1)
	}
	sc.uni[i] = uniCount{h, 1}
	sc.nUni++
	if sc.nUni >= uniSlots*3/4 {
		sc.flushUnigrams()
	}
}

// flushUnigrams adds the counted single characters' postings to the sums.
func (sc *scorer) flushUnigrams() {
	for i := range sc.uni {
		u := sc.uni[i]
		if u.n == 0 {
			continue
		}
		post := sc.m.Lookup(u.h)
		for k := 0; k+1 < len(post); k += 2 {
			sc.sum[post[k]&(maxLangs-1)] += u.n * int32(int8(post[k+1]))
		}
		sc.uni[i] = uniCount{}
	}
	sc.nUni = 0
}

// minSampled is the fewest letters the samples of a long text must hold; below it the whole text
// is read instead.
const minSampled = 64

func (d *Detector) score(ctx context.Context, text string, script Script, letters int, allowed Set) (Result, error) {
	sc := &scorer{m: d.m}
	visit := func(part string) {
		// The corpora are composed (NFC); decomposed accents would split words at their marks.
		if !norm.NFC.IsNormalString(part) {
			part = norm.NFC.String(part)
		}
		forWords(part, script, sc.word)
	}
	if len(text) <= SampleAbove {
		visit(text)
	} else {
		step := (len(text) - WindowBytes) / (Windows - 1)
		for w := range Windows {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			start := w * step
			// Start and end on rune boundaries; forWords skips the cut word at each edge.
			for start > 0 && !utf8.RuneStart(text[start]) {
				start--
			}
			end := min(start+WindowBytes, len(text))
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
			visit(trimPartialWords(text, start, end))
		}
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	if len(text) > SampleAbove && sc.letters < minSampled && sc.letters < letters {
		// The samples missed the letters (a long text that is mostly digits or symbols, with
		// the words in one place): read it all, scoring words until the budget is spent.
		*sc = scorer{m: d.m, budget: SampleAbove}
		for start := 0; start < len(text) && sc.letters < sc.budget; start += SampleAbove {
			if err := ctx.Err(); err != nil {
				return Result{}, err
			}
			end := min(start+SampleAbove, len(text))
			for end < len(text) && !utf8.RuneStart(text[end]) {
				end++
			}
			visit(trimPartialWords(text, max(start, 0), end))
		}
	}
	sc.flushUnigrams()
	if sc.letters == 0 {
		return Result{}, nil
	}
	p := d.m.Params
	// A message of one word is scored as one: the words people send alone ("hola", "danke")
	// are not the ones running text uses most, so the one-word values of the languages that
	// have them are added (scripts/train/langid, oneword.go).
	if sc.words == 1 && len(text) <= SampleAbove && !script.SingleCharWords() {
		post := sc.m.Lookup(sc.alone)
		for k := 0; k+1 < len(post); k += 2 {
			sc.sum[post[k]&(maxLangs-1)] += int32(int8(post[k+1]))
		}
	}
	var ranked []Scored
	var logp [maxLangs]float32
	best := float32(math.Inf(-1))
	for l := range d.codes {
		if !allowed.Has(l) {
			continue
		}
		s := p.Step * float32(sc.sum[l])
		if l < len(d.m.Prior) {
			s += d.m.Prior[l]
		}
		logp[l] = s
		best = max(best, s)
		ranked = append(ranked, Scored{Lang: l})
	}
	if len(ranked) == 0 {
		return Result{}, nil
	}
	// Confidence: a softmax of the scores, tempered by the length of the text (the n-gram model
	// grows overconfident as evidence that is not independent piles up).
	temp := p.temperature(sc.letters)
	var z float64
	for i := range ranked {
		e := math.Exp(float64(logp[ranked[i].Lang]-best) / temp)
		ranked[i].Confidence = e
		z += e
	}
	for i := range ranked {
		ranked[i].Confidence /= z
	}
	slices.SortStableFunc(ranked, func(a, b Scored) int {
		switch {
		case a.Confidence > b.Confidence:
			return -1
		case a.Confidence < b.Confidence:
			return 1
		}
		return a.Lang - b.Lang
	})
	return Result{Ranked: ranked, Letters: sc.letters}, nil
}

// trimPartialWords returns text[start:end] without the letters of a word cut at either edge.
func trimPartialWords(text string, start, end int) string {
	if start > 0 {
		r, _ := utf8.DecodeLastRuneInString(text[:start])
		for start < end && ScriptOf(r) != NoScript {
			var n int
			r, n = utf8.DecodeRuneInString(text[start:end])
			if ScriptOf(r) == NoScript {
				break
			}
			start += n
		}
	}
	if end < len(text) {
		r, _ := utf8.DecodeRuneInString(text[end:])
		for end > start && ScriptOf(r) != NoScript {
			var n int
			r, n = utf8.DecodeLastRuneInString(text[start:end])
			if ScriptOf(r) == NoScript {
				break
			}
			end -= n
		}
	}
	return text[start:end]
}

// forWords calls fn with the lower-cased letters of every word of text written in script:
// maximal runs of letters of that script, cut at MaxWordRunes; every letter is a word of its
// own in Han, kana and Hangul.
func forWords(text string, script Script, fn func(word []rune)) {
	var w [MaxWordRunes]rune
	n := 0
	skipping := false // inside a run of letters longer than MaxWordRunes
	var st stretch    // the run of the last letter, to read stretched letters as one
	flush := func() {
		if n > 0 {
			fn(w[:n])
		}
		n = 0
		st = stretch{}
		skipping = false
	}
	single := script.SingleCharWords()
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		i += size
		s := ScriptOf(r)
		if s == NoScript || s != script && !(script == Han && s == Kana) {
			flush()
			continue
		}
		if single {
			flush()
			w[0] = r
			n = 1
			flush()
			continue
		}
		if skipping {
			continue
		}
		if n == MaxWordRunes {
			fn(w[:n])
			n = 0
			skipping = true
			continue
		}
		lr := Lower(r)
		switch st.next(lr) {
		case stretchDrop:
			continue
		case stretchDropBoth:
			n--
			continue
		}
		w[n] = lr
		n++
	}
	flush()
}

// Stretched letters. A letter written three times or more in a row is stretched ("holaaa",
// "sooo", "hiiii"): no supported language spells so (bar rare compounds such as German
// "Schifffahrt"), and the n-grams of the stretch would score a language that doubles the
// letter (Somali for "oo", "aa"). Such a run is read as one letter; a double letter stays.
type stretch struct {
	last rune
	run  int
}

// What to do with a letter.
const (
	stretchKeep     = iota
	stretchDrop     // the letter continues a stretch already cut to one
	stretchDropBoth // the letter makes a run of three: drop it and the second one kept before it
)

// next says what to do with the next letter r (lower-cased) of a word.
func (s *stretch) next(r rune) int {
	if r == s.last {
		s.run++
	} else {
		s.last, s.run = r, 1
	}
	switch {
	case s.run == 3:
		return stretchDropBoth
	case s.run > 3:
		return stretchDrop
	}
	return stretchKeep
}

// Destretch returns the letters of word (lower-cased, as the detector reads a word) with every
// run of three or more of one letter read as one: what the detector scores. The trainer keys its
// whole-word and one-word values by it.
func Destretch(word string) string {
	var st stretch
	out := make([]rune, 0, len(word))
	for _, r := range word {
		switch st.next(r) {
		case stretchDrop:
			continue
		case stretchDropBoth:
			out = out[:len(out)-1]
			continue
		}
		out = append(out, r)
	}
	return string(out)
}

// word scores one word padded with boundaries: every character and the final boundary is
// predicted from up to four characters before it, backing off to shorter n-grams.
func (sc *scorer) word(w []rune) {
	b := sc.buf[:0]
	offs := sc.offs[:0]
	offs = append(offs, 0)
	b = append(b, ' ')
	for _, r := range w {
		offs = append(offs, len(b))
		b = utf8.AppendRune(b, r)
	}
	offs = append(offs, len(b))
	b = append(b, ' ')
	offs = append(offs, len(b))
	if sc.budget > 0 && sc.letters >= sc.budget {
		return
	}
	sc.letters += len(w)
	if sc.words++; sc.words == 1 {
		sc.alone = oneWordHash(b)
	}
	// Every n-gram of up to MaxOrder characters of the padded word that ends at a letter or at
	// the final boundary (the start boundary alone predicts nothing). Each is hashed once,
	// extending FNV-1a from its first character, and its postings are added up.
	last := len(w) + 1
	minN, maxN := max(int(sc.m.Params.MinOrder), 1), MaxOrder
	if len(w) == 1 && ScriptOf(w[0]).SingleCharWords() {
		last, minN, maxN = 1, 1, 1 // single-character words are scored on the character alone
	}
	if len(w)+2 > MaxOrder && !ScriptOf(w[0]).SingleCharWords() {
		// The whole padded word, longer than any n-gram: its postings say how much more often
		// a language uses the word than its n-grams predict (scripts/train/langid, words.go).
		post := sc.m.Lookup(Hash(b))
		for k := 0; k+1 < len(post); k += 2 {
			sc.sum[post[k]&(maxLangs-1)] += int32(int8(post[k+1]))
		}
	}
	for s := 0; s <= last; s++ {
		h := uint64(14695981039346656037)
		for e := s; e <= min(s+maxN-1, last); e++ {
			for _, c := range b[offs[e]:offs[e+1]] {
				h ^= uint64(c)
				h *= 1099511628211
			}
			if e == 0 || e-s+1 < minN {
				continue
			}
			if e == s {
				sc.unigram(mix(h))
				continue
			}
			post := sc.m.Lookup(mix(h))
			for k := 0; k+1 < len(post); k += 2 {
				sc.sum[post[k]&(maxLangs-1)] += int32(int8(post[k+1]))
			}
		}
	}
}

// OneWordMark begins the key of a word written as a whole message: the mark, then the padded
// word (" hola "). No n-gram or whole word has it, since those hold only letters and boundaries.
const OneWordMark = 0x01

// oneWordHash is Hash of OneWordMark followed by the padded word b.
func oneWordHash(b []byte) uint64 {
	h := uint64(14695981039346656037)
	h ^= OneWordMark
	h *= 1099511628211
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return mix(h)
}

// temperature is the softmax temperature for a text of the given number of scored letters:
// Calibration[0] + Calibration[1] per letter beyond Calibration[3], at most Calibration[2]
// (fitted by scripts/train/langid on its development sets). A model without calibration gets 1.
func (p Params) temperature(letters int) float64 {
	t0, slope, tmax, off := float64(p.Calibration[0]), float64(p.Calibration[1]), float64(p.Calibration[2]), float64(p.Calibration[3])
	if t0 <= 0 {
		return 1
	}
	t := t0 + slope*max(float64(letters)-off, 0)
	if tmax > 0 {
		t = min(t, tmax)
	}
	return t
}
