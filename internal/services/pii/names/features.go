package names

import (
	"unicode/utf8"
)

// Labels of a token: outside a name, beginning of a name, inside a name.
const (
	O = iota
	B
	I
	numLabels
)

// Capitalisation of a word.
const (
	capLower  = iota // maria, de
	capInit          // Maria, O'Brien
	capAll           // MARIA
	capSingle        // M (an initial)
	capMixed         // iPhone, eBay
	capCamel         // McDonald, DeVries, UserService
	capNone          // numbers and codes
)

// tokInfo is what the features need of one token, computed once per text.
type tokInfo struct {
	lw    uint64 // hash of the lower-case form ("<num>" and "<code>" for numbers and codes)
	shape uint32
	cls   Class
	gap   Gap // before the token
	caps  uint8
	gaz   uint8
	kind  Kind
	runes uint8 // capped at 255
	// otherScript: the word has a letter with case in a script other than Latin ("Привет",
	// "Μαρία"). The tagger has seen no labelled text in such scripts, so a capital there is no
	// sign of a name it has learned: like a word in lower case, the word is a candidate only
	// when the gazetteer knows it as a name.
	otherScript bool
	// candidate: the tagger scores the token (a word on a line that is not a log line, with a
	// capital or in the gazetteer, and not a function word unless it is also a name); other
	// tokens are outside a name unless they follow one.
	candidate bool
	// scored: the Viterbi decoder scores the token (see markScored).
	scored bool
	log    bool
	// handle: the word is written right after "@" (a user handle, or the domain of an e-mail
	// address): never a name.
	handle bool
	// docLower: the word is written in lower case somewhere in the text; docCapMid: it is
	// written with a capital somewhere in the text other than at the start of a sentence or line.
	docLower, docCapMid bool
	// shape, cls and clus are computed when first needed (only words near a candidate need
	// them); these say whether they have been.
	hasShape, hasCls, hasClus bool
	// clus: the word's class + 1 at each level of the word clusters (0: none).
	clus [MaxClusterLevels]uint16
}

var (
	shapeDigits = uint32(fnv("d"))
	hashNum     = fnv("<num>")
	hashCode    = fnv("<code>")
	hashBOS     = fnv("<s>")
	hashEOS     = fnv("</s>")
)

// analyse computes the tokInfo of every token of text, in one pass plus one pass per line for
// the log-line rule.
func analyse(text string, toks []Token, g *Gazetteer, scratch []byte) []tokInfo {
	info := make([]tokInfo, len(toks))
	for i, t := range toks {
		w := text[t.Start:t.End]
		ti := &info[i]
		ti.kind, ti.gap = t.Kind, t.Gap
		switch t.Kind {
		case Number:
			ti.lw, ti.shape, ti.caps, ti.hasShape, ti.hasCls = hashNum, shapeDigits, capNone, true, true
			continue
		case Code:
			ti.lw, ti.caps, ti.hasCls = hashCode, capNone, true
			continue
		}
		scratch = appendLower(scratch[:0], w)
		ti.lw = fnvBytes(scratch)
		var runes int
		ti.caps, runes, ti.otherScript = capsOf(w)
		ti.runes = uint8(min(runes, 255))
		ti.gaz = g.flagsFP(uint32(ti.lw >> (64 - fpBits)))
		if ti.gaz == 0 {
			if base := trimPossessive(scratch); len(base) < len(scratch) {
				// "Anna's" is looked up as "anna"; the word feature keeps the whole form.
				ti.gaz = g.flagsFP(uint32(fnvBytes(base) >> (64 - fpBits)))
			}
		}
		if ti.caps != capLower {
			// A capitalised word may be a log level ("ERROR") or a function word at the start
			// of a sentence ("The"); the log-line rule and the candidate test need the class.
			ti.cls, ti.hasCls = lexicon[ti.lw], true
		}
	}
	markLogLines(text, toks, info)
	markDocUse(info)
	for i := range info {
		ti := &info[i]
		name := ti.gaz&(Given|Surname) != 0
		ti.handle = ti.kind == Word && toks[i].Start > 0 && text[toks[i].Start-1] == '@'
		ti.candidate = ti.kind == Word && !ti.log && !ti.handle && (ti.caps != capLower && !ti.otherScript || name) && (name || ti.cls&ClsFunction == 0)
	}
	return info
}

// noBegin reports whether the token may not begin a name: a word in a cased script other than
// Latin that is no candidate (the gazetteer does not know it as a name), which the decoder
// scores only because it follows a candidate ("Hello Привет"). It may still continue a name.
func (ti *tokInfo) noBegin() bool { return ti.otherScript && !ti.candidate }

// markDocUse sets docLower and docCapMid from how each word is written across the text. Only
// words written with a capital somewhere are tracked, so text without capitals costs nothing.
func markDocUse(info []tokInfo) {
	const lowerSeen, capMidSeen = 1, 2
	idx := map[uint64]uint8{}
	for i := range info {
		ti := &info[i]
		if ti.kind != Word || ti.caps == capLower {
			continue
		}
		b := idx[ti.lw]
		if ti.gap&(GapStart|GapSent|GapNewline|GapColon|GapQuote) == 0 {
			b |= capMidSeen
		}
		idx[ti.lw] = b
	}
	if len(idx) == 0 {
		return
	}
	for i := range info {
		ti := &info[i]
		if ti.kind == Word && ti.caps == capLower {
			if b, ok := idx[ti.lw]; ok {
				idx[ti.lw] = b | lowerSeen
			}
		}
	}
	for i := range info {
		ti := &info[i]
		if ti.kind != Word {
			continue
		}
		b := idx[ti.lw]
		ti.docLower = b&lowerSeen != 0 || ti.caps == capLower
		ti.docCapMid = b&capMidSeen != 0
	}
}

// trimPossessive returns w without a trailing possessive "'s" or "’s" when at least two bytes
// are left, and w itself otherwise.
func trimPossessive(w []byte) []byte {
	for _, suf := range []string{"'s", "’s"} {
		if len(w) >= len(suf)+2 && string(w[len(w)-len(suf):]) == suf {
			return w[:len(w)-len(suf)]
		}
	}
	return w
}

func fnvBytes(b []byte) uint64 {
	h := uint64(14695981039346656037)
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	return h
}

// markLogLines flags the tokens of log lines, where no name is reported: a line that starts with
// a timestamp (a number joined to another number by '-', ':', '.' or '/') or has a log level
// (ERROR, WARN, INFO, ... in capitals) among its first five tokens.
func markLogLines(text string, toks []Token, info []tokInfo) {
	for start := 0; start < len(toks); {
		end := start + 1
		for end < len(toks) && toks[end].Gap&GapNewline == 0 {
			end++
		}
		log := false
		if end-start >= 2 && toks[start].Kind == Number && toks[start+1].Kind == Number &&
			toks[start+1].Gap&(GapDash|GapColon|GapSent|GapOther) != 0 {
			log = true
		}
		for k := start; k < end && k < start+5 && !log; k++ {
			if info[k].cls&ClsLogLevel != 0 && info[k].caps == capAll {
				log = true
			}
		}
		if log {
			for k := start; k < end; k++ {
				info[k].log = true
			}
		}
		start = end
	}
}

// capsOf returns the capitalisation of w, its length in code points, and whether it has a letter
// with case in a script other than Latin.
func capsOf(w string) (caps uint8, runes int, otherScript bool) {
	upper, lower, firstUpper, upperAfterLower := 0, 0, false, false
	for i, r := range w {
		runes++
		c := classOf(r)
		otherScript = otherScript || c&rcOtherCased != 0
		switch {
		case c&rcUpper != 0:
			upper++
			if i == 0 {
				firstUpper = true
			} else if lower > 0 {
				upperAfterLower = true
			}
		case c&rcLower != 0:
			lower++
		}
	}
	switch {
	case upper == 0:
		caps = capLower
	case upper == 1 && runes == 1:
		caps = capSingle
	case lower == 0:
		caps = capAll
	case !firstUpper:
		caps = capMixed
	case upperAfterLower && !hyphenCapital(w):
		caps = capCamel
	default:
		caps = capInit
	}
	return caps, runes, otherScript
}

// hyphenCapital reports whether every capital after the first follows a joiner ("Jean-Pierre",
// "O'Brien"), which is an ordinary capitalised name, not camel case.
func hyphenCapital(w string) bool {
	prev := rune(0)
	for i, r := range w {
		if i > 0 && classOf(r)&rcUpper != 0 && !isJoiner(prev) {
			return false
		}
		prev = r
	}
	return true
}

// shapeHash hashes the word's shape: X for a capital, x for a small letter, d for a digit, the
// character itself otherwise, runs collapsed, at most eight characters ("Xx", "Xx-Xx", "X",
// "XX", "x'Xx", "Xxd").
func shapeHash(w string) uint32 {
	var b [8]byte
	n := 0
	var last byte
	for _, r := range w {
		var c byte
		rc := classOf(r)
		switch {
		case rc&rcUpper != 0:
			c = 'X'
		case rc&rcWord != 0:
			c = 'x'
		case rc&rcDigit != 0:
			c = 'd'
		case r == '’':
			c = '\''
		case r < utf8.RuneSelf:
			c = byte(r)
		default:
			c = '?'
		}
		if c == last {
			continue
		}
		last = c
		if n < len(b) {
			b[n] = c
			n++
		}
	}
	return uint32(fnvBytes(b[:n]))
}

// Feature templates. Each feature is a template number mixed with a value and hashed into the
// model's buckets.
const (
	fBias = iota
	fWord
	fShape
	fPre1
	fPre2
	fPre3
	fSuf1
	fSuf2
	fSuf3
	fSuf4
	fGaz
	fGazCaps
	fClass
	fCaps
	fPrevWord
	fPrev2Word
	fNextWord
	fNext2Word
	fPrevShape
	fNextShape
	fPrevGazCaps
	fNextGazCaps
	fPrevClass
	fNextClass
	fGap
	fNextGap
	fGapCaps
	fGapGazCaps
	fY1
	fY1Y2
	fY1Shape
	fY1Word
	fBigramPrev
	fBigramNext
	fSeen
	fSeenCaps
	fKinds
	fGazPair
	fPrevWordGap
	fY1Gap
	fLen
	fY1NextGazCaps
	fDocUse
	fDocUseCaps
	fY1PrevCur
	fNextClassCaps
	fPrevClassCaps
	fClus      // + level: the word's class at each level
	fPrevClus  = fClus + MaxClusterLevels
	fNextClus  = fPrevClus + 1
	fClusCaps  = fNextClus + 1
	fClusPrevW = fClusCaps + 1
	fClusNextW = fClusPrevW + 1
)

func mix(t uint64, v uint64) uint64 {
	h := (t+1)*0x9E3779B97F4A7C15 ^ v
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 29
	h *= 0x94D049BB133111EB
	h ^= h >> 32
	return h
}

// featurizer computes the features of one token of a text.
type featurizer struct {
	text  string
	toks  []Token
	info  []tokInfo
	bits  uint
	buf   []uint32
	lower []byte
	gaz   *Gazetteer
	clus  *Clusters
	off   map[string]bool // rules switched off (see Model.WithoutRules)
}

func (f *featurizer) emit(t uint64, v uint64) {
	f.buf = append(f.buf, uint32(mix(t, v)>>(64-f.bits)))
}

func (f *featurizer) word(i int) uint64 {
	switch {
	case i < 0:
		return hashBOS
	case i >= len(f.info):
		return hashEOS
	}
	return f.info[i].lw
}

func (f *featurizer) shape(i int) uint64 {
	if i < 0 || i >= len(f.info) {
		return 0
	}
	ti := &f.info[i]
	if !ti.hasShape {
		t := f.toks[i]
		ti.shape, ti.hasShape = shapeHash(f.text[t.Start:t.End]), true
	}
	return uint64(ti.shape)
}

func (f *featurizer) gazCaps(i int) uint64 {
	if i < 0 || i >= len(f.info) {
		return 0xff
	}
	return uint64(f.info[i].gaz) | uint64(f.info[i].caps)<<4
}

func (f *featurizer) class(i int) Class {
	if i < 0 || i >= len(f.info) {
		return 0
	}
	ti := &f.info[i]
	if !ti.hasCls {
		ti.cls, ti.hasCls = lexicon[ti.lw], true
	}
	return ti.cls
}

// cluster returns the class + 1 of token i at level k (0 for none, or outside the text).
func (f *featurizer) cluster(i, k int) uint64 {
	if i < 0 || i >= len(f.info) || f.clus == nil {
		return 0
	}
	ti := &f.info[i]
	if !ti.hasClus {
		ti.hasClus = true
		if ti.kind == Word {
			if ids := f.clus.lookup(uint32(ti.lw >> (64 - fpBits))); ids != nil {
				copy(ti.clus[:], ids)
			}
		}
	}
	return uint64(ti.clus[k])
}

// clusterFeatures emits the word-class features of token i: its class at every level, the
// classes of its neighbours at the middle level, and the middle class with the capitalisation
// and with the neighbouring words.
func (f *featurizer) clusterFeatures(i int, gc uint64) {
	levels := f.clus.Levels()
	if levels == 0 {
		return
	}
	for k := range levels {
		f.emit(uint64(fClus+k), f.cluster(i, k))
	}
	mid := levels / 2
	c := f.cluster(i, mid)
	f.emit(fPrevClus, f.cluster(i-1, mid))
	f.emit(fNextClus, f.cluster(i+1, mid))
	f.emit(fClusCaps, c|gc<<16)
	f.emit(fClusPrevW, c^f.word(i-1)*0x9E3779B97F4A7C15)
	f.emit(fClusNextW, c^f.word(i+1)*0xBF58476D1CE4E5B9)
}

// obsFeatures returns the bucket indices of token i's features that do not depend on the label
// before it: what the token and its neighbours look like.
func (f *featurizer) obsFeatures(i int) []uint32 {
	f.buf = f.buf[:0]
	ti := &f.info[i]
	gc := f.gazCaps(i)
	f.emit(fBias, 0)
	f.emit(fWord, ti.lw)
	f.emit(fShape, f.shape(i))
	f.affixes(i)
	f.emit(fGaz, uint64(ti.gaz))
	f.emit(fGazCaps, gc)
	for c := f.class(i); c != 0; c &= c - 1 {
		f.emit(fClass, uint64(c&-c))
	}
	f.emit(fCaps, uint64(ti.caps))
	f.emit(fPrevWord, f.word(i-1))
	f.emit(fPrev2Word, f.word(i-2))
	f.emit(fNextWord, f.word(i+1))
	f.emit(fNext2Word, f.word(i+2))
	f.emit(fPrevShape, f.shape(i-1))
	f.emit(fNextShape, f.shape(i+1))
	f.emit(fPrevGazCaps, f.gazCaps(i-1))
	f.emit(fNextGazCaps, f.gazCaps(i+1))
	for c := f.class(i - 1); c != 0; c &= c - 1 {
		f.emit(fPrevClass, uint64(c&-c))
	}
	for c := f.class(i + 1); c != 0; c &= c - 1 {
		f.emit(fNextClass, uint64(c&-c))
	}
	nextGap := f.nextGap(i)
	f.emit(fGap, uint64(ti.gap))
	f.emit(fNextGap, uint64(nextGap))
	f.emit(fGapCaps, uint64(ti.gap)|uint64(ti.caps)<<16)
	f.emit(fGapGazCaps, uint64(ti.gap)|gc<<16)
	f.emit(fBigramPrev, f.word(i-1)*31^ti.lw)
	f.emit(fBigramNext, ti.lw*31^f.word(i+1))
	kinds := uint64(0xff)
	if i > 0 {
		kinds = uint64(f.info[i-1].kind)
	}
	if i+1 < len(f.info) {
		kinds |= uint64(f.info[i+1].kind) << 8
	} else {
		kinds |= 0xff << 8
	}
	f.emit(fKinds, kinds)
	f.emit(fGazPair, f.gazCaps(i-1)|gc<<8|f.gazCaps(i+1)<<16)
	f.emit(fPrevWordGap, f.word(i-1)^uint64(ti.gap)<<48)
	f.emit(fLen, uint64(min(ti.runes, 12)))
	for c := f.class(i + 1); c != 0; c &= c - 1 {
		f.emit(fNextClassCaps, uint64(c&-c)|gc<<16)
	}
	use := uint64(b2u(ti.docLower)) | uint64(b2u(ti.docCapMid))<<1
	f.emit(fDocUse, use)
	f.emit(fDocUseCaps, use|gc<<2|uint64(ti.gap)<<12)
	f.clusterFeatures(i, gc)
	return f.buf
}

// transFeatures returns the bucket indices of token i's features that pair the label before it,
// y1, with what the token looks like: for the Viterbi decoder, which scores each label after
// each previous label.
func (f *featurizer) transFeatures(i int, y1 int) []uint32 {
	f.buf = f.buf[:0]
	ti := &f.info[i]
	gc := f.gazCaps(i)
	f.emit(fY1, uint64(y1))
	f.emit(fY1Shape, f.shape(i)^uint64(y1)*0x100000001b3)
	f.emit(fY1Gap, uint64(y1)|uint64(ti.gap)<<4)
	f.emit(fY1Word, ti.lw^uint64(y1+1)*0x9E3779B97F4A7C15)
	f.emit(fY1PrevCur, uint64(y1)|f.gazCaps(i-1)<<2|gc<<12|uint64(ti.gap)<<24)
	return f.buf
}

// nextGap is the gap after token i (all bits set after the last token).
func (f *featurizer) nextGap(i int) Gap {
	if i+1 < len(f.info) {
		return f.info[i+1].gap
	}
	return Gap(0xffff)
}

// affixes emits the prefixes of one to three and the suffixes of one to four code points of
// the lower-case word.
func (f *featurizer) affixes(i int) {
	t := f.toks[i]
	f.lower = appendLower(f.lower[:0], f.text[t.Start:t.End])
	w := f.lower
	var ends [5]int // byte offsets after the first 1..3 runes
	n := 0
	for j := 0; j < len(w) && n < 3; {
		_, size := utf8.DecodeRune(w[j:])
		j += size
		n++
		ends[n] = j
	}
	for k := 1; k <= n; k++ {
		f.emit(uint64(fPre1+k-1), fnvBytes(w[:ends[k]]))
	}
	j, m := len(w), 0
	for j > 0 && m < 4 {
		_, size := utf8.DecodeLastRune(w[:j])
		j -= size
		m++
		f.emit(uint64(fSuf1+m-1), fnvBytes(w[j:]))
	}
}

func b2u(b bool) uint8 {
	if b {
		return 1
	}
	return 0
}
