package toxicity

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Reported speech without quote marks ("calling X vermin is disgusting") is read as an implicit
// quote when its sentence or the next one condemns what is reported: the reported clause is
// scored on its own and replaced by tokenQuote or tokenQuoteToxic, as a quoted passage is, so the
// model judges the frame around it (see implicitSpans). Models record this reading under
// MetaImplicit, and loading refuses any other value than ImplicitCondemned.
const (
	// MetaImplicit is the model file's metadata key for how reported speech is read.
	MetaImplicit = "implicit_quotes"
	// ImplicitCondemned is the only reading of reported speech the service has: a reported
	// clause is an implicit quote when its sentence or the next holds, outside the clause, a
	// word that condemns what is reported (class cond of reporting.txt: "stop", "disgusting",
	// "racist").
	ImplicitCondemned = "condemned"
)

// MetaImplicitLangs is the model file's metadata key holding the languages whose lines of the
// reporting list (reporting.txt) the model was trained with, comma-separated and sorted; a model
// without it used every line. The service reads reported speech with the same lines.
const MetaImplicitLangs = "implicit_langs"

// parseImplicitLangs parses a comma-separated list of the languages of a reporting list whose
// lines are used ("" or "all" is every language). It returns them sorted and without repeats,
// or nil when they are every language of the list, so that naming them all reads as naming none.
func parseImplicitLangs(s, reportingList string) ([]string, error) {
	if s == "" || s == "all" {
		return nil, nil
	}
	have := map[string]bool{}
	if err := eachLine(reportingList, func(f []string) error {
		have[f[0]] = true
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reporting: %w", err)
	}
	want := map[string]bool{}
	for _, l := range strings.Split(s, ",") {
		l = strings.TrimSpace(l)
		if !have[l] {
			return nil, fmt.Errorf("implicit-quote languages: %q is not a language of the reporting list", l)
		}
		want[l] = true
	}
	if len(want) == len(have) {
		return nil, nil
	}
	langs := make([]string, 0, len(want))
	for l := range want {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	return langs, nil
}

// ReportingForLangs returns the lines of a reporting list whose language is one of langs, with
// its comments; nil langs keeps every line. A form listed in a kept language and in a dropped
// one stays (French "que" is also Spanish and Portuguese).
func ReportingForLangs(reportingList string, langs []string) string {
	if langs == nil {
		return reportingList
	}
	var b strings.Builder
	for line := range strings.Lines(reportingList) {
		lang, _, ok := strings.Cut(line, "\t")
		if ok && !strings.HasPrefix(line, "#") && !slices.Contains(langs, lang) {
			continue
		}
		b.WriteString(line)
	}
	return b.String()
}

// Bounds of an implicit quote, in words and bytes: shorter clauses are not reported speech
// worth judging apart ("said so"), longer ones are cut so that one clause never takes over a
// text. maxFormBytes bounds the words looked up in the lists: no form has a longer word.
const (
	minClause      = 2
	minBackClause  = 3 // before a verb-final construct, fewer words are its subject ("was du sagst")
	maxClause      = 24
	maxClauseBytes = maxQuote
	maxFormBytes   = 40
	maxRepPhrase   = 4 // the most words of a form
)

// repClass is what reporting.txt says about a form; a form can be in several classes.
type repClass uint8

const (
	repIntro repClass = 1 << iota // introduces reported words
	repComp                       // complementizer skipped after an intro
	repEnd                        // ends a reported clause
	repVerb                       // ends a reported clause of at least minClause words
	repCond                       // condemns what is reported
	repComma                      // an intro whose clause may follow a comma or colon without comp
	repBack                       // ends reported words that come before it (verb-final)
)

var repClassNames = map[string]repClass{"rep": repIntro, "repc": repIntro | repComma, "comp": repComp, "end": repEnd, "verb": repVerb, "cond": repCond, "back": repBack}

// reporting is the parsed reporting.txt.
type reporting struct {
	forms     map[string]repClass // folded form (words joined by single spaces) -> classes
	starts    map[string]uint8    // first word of a form -> most words of a form starting with it
	introEnds map[string]bool     // last word of every rep, repc and back form
	stems     stemSet[repClass]   // folded stem -> classes (cond only)
}

// newReporting parses a reporting list (lines "lang<TAB>class<TAB>form"; # starts a comment).
func newReporting(file string) (*reporting, error) {
	r := &reporting{forms: map[string]repClass{}, starts: map[string]uint8{}, introEnds: map[string]bool{}}
	err := eachLine(file, func(f []string) error {
		if len(f) != 3 || repClassNames[f[1]] == 0 {
			return fmt.Errorf("want lang, class and form")
		}
		c := repClassNames[f[1]]
		if stem, ok := strings.CutSuffix(f[2], "*"); ok {
			words := foldWords(stem)
			if c != repCond || len(words) != 1 || len(words[0]) < 4 {
				return fmt.Errorf("stem %q: want one cond word of at least four letters", f[2])
			}
			r.stems.set(words[0], r.stems.values[words[0]]|c)
			return nil
		}
		words := foldWords(f[2])
		if len(words) == 0 || len(words) > maxRepPhrase {
			return fmt.Errorf("form %q: want one to %d words", f[2], maxRepPhrase)
		}
		for _, w := range words {
			if len(w) > maxFormBytes {
				return fmt.Errorf("form %q: word longer than %d bytes", f[2], maxFormBytes)
			}
		}
		r.forms[strings.Join(words, " ")] |= c
		r.starts[words[0]] = max(r.starts[words[0]], uint8(len(words)))
		if c&(repIntro|repBack) != 0 {
			r.introEnds[words[len(words)-1]] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reporting: %w", err)
	}
	if len(r.forms) == 0 {
		return nil, fmt.Errorf("reporting: empty list")
	}
	return r, nil
}

// foldWords splits s into folded words as implicitSpans reads text.
func foldWords(s string) []string {
	var sc repScanner
	sc.reset(s, nil)
	var out []string
	for sc.next() {
		out = append(out, string(sc.word()))
	}
	return out
}

// Boundaries before a word.
const (
	brkNone     = iota
	brkClause   // comma, colon, bracket, dash, quote mark, or a skipped quoted passage
	brkSentence // full stop, question or exclamation mark, semicolon, line break
)

// repScanner reads a text as words (letters, digits and marks; apostrophes and other symbols
// split words) with the boundary before each, folded to lower case without accents, in one
// pass. Quoted passages given as skip ([_, _, markStart, markEnd], sorted) are passed over as a
// clause boundary.
type repScanner struct {
	s        string
	skip     [][4]int
	i        int    // next byte to read
	start    int    // current word's byte range
	end      int    //
	brk      int    // boundary before the current word
	comma    bool   // that boundary is only commas or colons (and spaces)
	buf      []byte // current word, folded
	long     bool   // the word is longer than maxFormBytes folded
	lastWord bool   // the previous rune was a word character
}

func (sc *repScanner) reset(s string, skip [][4]int) {
	*sc = repScanner{s: s, skip: skip, buf: sc.buf[:0]}
}

func (sc *repScanner) word() []byte { return sc.buf }

// next advances to the next word; false at the end of the text.
func (sc *repScanner) next() bool {
	s := sc.s
	brk := brkNone
	comma, other := false, false // the boundary holds a comma or colon; it holds another mark
	sc.buf = sc.buf[:0]
	sc.long = false
	for sc.i < len(s) {
		for len(sc.skip) > 0 && sc.skip[0][3] <= sc.i {
			sc.skip = sc.skip[1:]
		}
		if len(sc.skip) > 0 && sc.i >= sc.skip[0][2] {
			sc.i = sc.skip[0][3]
			brk = max(brk, brkClause)
			other = true
			sc.lastWord = false
			continue
		}
		r, n := rune(s[sc.i]), 1
		if r >= utf8.RuneSelf {
			r, n = utf8.DecodeRuneInString(s[sc.i:])
		}
		if isWordRune(r) {
			sc.start = sc.i
			limit := len(s) // the word ends at the next skipped passage at the latest
			if len(sc.skip) > 0 {
				limit = min(limit, sc.skip[0][2])
			}
			for sc.i < limit {
				if c := s[sc.i]; c < utf8.RuneSelf { // ASCII: what isWordRune and foldRune do, inline
					if !asciiWordByte[c] {
						break
					}
					if !sc.long {
						sc.buf = append(sc.buf, asciiLower(c))
						sc.long = len(sc.buf) > maxFormBytes
					}
					sc.i++
					continue
				}
				r, n := utf8.DecodeRuneInString(s[sc.i:])
				if !isWordRune(r) {
					break
				}
				if !sc.long {
					sc.buf = foldRune(sc.buf, r)
					sc.long = len(sc.buf) > maxFormBytes
				}
				sc.i += n
			}
			sc.end = sc.i
			sc.brk = brk
			sc.comma = brk == brkClause && comma && !other
			sc.lastWord = true
			return true
		}
		switch r {
		case '.':
			// A full stop between digits (3.5) or letters (e.g.) ends nothing.
			if !(sc.lastWord && sc.i+1 < len(s) && isWordRune(rune(s[sc.i+1]))) {
				brk = brkSentence
			}
		case '!', '?', ';', '…', '\n', '\r':
			brk = brkSentence
		case ',', ':':
			brk = max(brk, brkClause)
			comma = true
		case '(', ')', '[', ']', '{', '}', '–', '—', '"', '“', '”', '„', '«', '»', '‹', '›', '‚', '‘':
			brk = max(brk, brkClause)
			other = true
		case '\'', '’', 'ʼ':
			if !sc.lastWord || sc.i+n >= len(s) || !isWordRune(firstRune(s[sc.i+n:])) {
				brk = max(brk, brkClause) // a quote mark, not an apostrophe inside a word
				other = true
			}
		case '-':
			if !sc.lastWord {
				brk = max(brk, brkClause) // a dash (" - "), not a hyphen
				other = true
			}
		}
		sc.lastWord = false
		sc.i += n
	}
	return false
}

func firstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// asciiWordByte marks the ASCII bytes isWordRune accepts.
var asciiWordByte = func() (t [utf8.RuneSelf]bool) {
	for c := range utf8.RuneSelf {
		t[c] = isWordRune(rune(c))
	}
	return t
}()

// asciiLower lower-cases an ASCII letter; other bytes stay as they are.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r)
}

// foldRune appends r in lower case without accents, as textnorm folds letters (combining marks
// dropped).
func foldRune(buf []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		return append(buf, asciiLower(byte(r)))
	}
	if unicode.IsMark(r) {
		return buf
	}
	return textnorm.AppendFoldedLetter(buf, r)
}

// rtok is a word of the scanned text: its byte range, its folded form in the buffer and the
// boundary before it.
type rtok struct {
	start, end int
	f0, f1     int
	brk        uint8
	comma      bool // the boundary before it is only commas or colons
	long       bool
}

// implicitSpans finds the reported clauses of s to read as implicit quotes: a construct of
// class rep (one to maxRepPhrase words, within one clause), optionally a comma and a complementizer
// (comp), then a clause of minClause to maxClause words and at most maxClauseBytes that runs
// to the next boundary (punctuation, a quote mark, an end form, a verb form once the clause has
// minClause words, or a quoted passage of explicit, which it never overlaps). A clause counts
// only when its sentence or the next holds a cond form outside it (ImplicitCondemned). Each
// span is [start, end, start, end] (the layout of quoteSpans, with no marks), sorted. The work
// is linear in len(s): every word is read once, looked up at most 3*maxRepPhrase times, and a
// clause ends where the next search begins. It returns an error wrapping ctx.Err() when ctx is
// done.
func (r *reporting) implicitSpans(ctx context.Context, s string, explicit [][4]int) ([][4]int, error) {
	// First pass: does the text hold a construct? Most texts hold none. The last
	// maxRepPhrase words are kept (folded, with the boundary before each) so that a construct
	// is checked where its last word is found. They and the phrase live on the stack: a scanned
	// word holds at most maxFormBytes bytes and one more rune, so they never grow.
	const wordCap = maxFormBytes + utf8.UTFMax
	var sc repScanner
	sc.reset(s, explicit)
	var lastBufs [maxRepPhrase][wordCap]byte
	var last [maxRepPhrase][]byte
	for k := range last {
		last[k] = lastBufs[k][:0]
	}
	var lastBrk [maxRepPhrase]int
	var phraseBuf [maxRepPhrase * (wordCap + 1)]byte
	phrase := phraseBuf[:0]
	found := false
	for n := 0; sc.next(); n++ {
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		slot := n % maxRepPhrase
		last[slot] = append(last[slot][:0], sc.word()...)
		lastBrk[slot] = sc.brk
		if sc.long {
			lastBrk[slot] = -1 // starts no form and joins none
			continue
		}
		if !r.introEnds[string(sc.word())] {
			continue
		}
		for k := 1; k <= min(n+1, maxRepPhrase); k++ {
			first := (n - k + 1) % maxRepPhrase
			if lastBrk[first] < 0 || k > 1 && lastBrk[(first+1)%maxRepPhrase] != brkNone {
				break
			}
			phrase = phrase[:0]
			for j := n - k + 1; j <= n; j++ {
				if len(phrase) > 0 {
					phrase = append(phrase, ' ')
				}
				phrase = append(phrase, last[j%maxRepPhrase]...)
			}
			if r.forms[string(phrase)]&(repIntro|repBack) != 0 {
				found = true
				break
			}
		}
		if found {
			break
		}
	}
	if !found {
		return nil, nil
	}
	// Second pass: every word, folded into one buffer with single spaces between words.
	var toks []rtok
	var buf []byte
	sc.reset(s, explicit)
	for n := 0; sc.next(); n++ {
		if n%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		t := rtok{start: sc.start, end: sc.end, brk: uint8(sc.brk), comma: sc.comma, long: sc.long}
		if len(buf) > 0 {
			buf = append(buf, ' ')
		}
		t.f0 = len(buf)
		if !sc.long {
			buf = append(buf, sc.word()...)
		}
		t.f1 = len(buf)
		toks = append(toks, t)
	}
	m := matcher{r: r, toks: toks, buf: buf}

	// Prefix counts of cond forms, and each word's sentence.
	conds := make([]int, len(toks)+1)
	sentStart := make([]int, len(toks))
	sentEnd := make([]int, len(toks))
	for i := range toks {
		conds[i+1] = conds[i]
		if k, _ := m.match(i, repCond); k > 0 || m.stem(i)&repCond != 0 {
			conds[i+1]++
		}
		sentStart[i] = i
		if i > 0 && toks[i].brk != brkSentence {
			sentStart[i] = sentStart[i-1]
		}
	}
	for i := len(toks) - 1; i >= 0; i-- {
		sentEnd[i] = i + 1
		if i+1 < len(toks) && toks[i+1].brk != brkSentence {
			sentEnd[i] = sentEnd[i+1]
		}
	}

	// condemned says whether a clause [start, end) counts: its sentence or the next one ("You
	// said X. That is racist.") must hold a cond form outside it.
	condemned := func(start, end int) bool {
		ss, se := sentStart[start], sentEnd[start]
		if se < len(toks) {
			se = sentEnd[se]
		}
		return conds[se]-conds[ss]-(conds[end]-conds[start]) > 0
	}
	var spans [][4]int
	from := 0 // the first word a backward clause may take
	for i := 0; i < len(toks); {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if toks[i].brk != brkNone {
			from = i
		}
		// A verb-final construct ("Flüchtlinge als Ratten zu bezeichnen ist ...") at the end of
		// its clause takes the words before it, back to the last boundary, complementizer, end
		// form or clause.
		if kb, _ := m.match(i, repBack); kb > 0 && i-from >= minBackClause {
			e := i + kb
			atEnd := e >= len(toks) || toks[e].brk != brkNone
			if !atEnd {
				_, c := m.match(e, repVerb|repEnd)
				atEnd = c&(repVerb|repEnd) != 0
			}
			if atEnd {
				start := max(from, i-maxClause)
				for toks[i-1].end-toks[start].start > maxClauseBytes {
					start++
				}
				if i-start >= minBackClause && condemned(start, i) {
					spans = append(spans, [4]int{toks[start].start, toks[i-1].end, toks[start].start, toks[i-1].end})
				}
				i = e
				from = e
				continue
			}
		}
		k, c := m.match(i, repIntro)
		if k == 0 {
			if kc, _ := m.match(i, repComp|repEnd); kc > 0 {
				from = i + kc
			}
			i++
			continue
		}
		j := i + k
		comp := false
		if j < len(toks) && toks[j].brk <= brkClause {
			if kc, _ := m.match(j, repComp); kc > 0 {
				j += kc
				comp = true
			}
		}
		// A repc construct also takes a clause after a comma or colon ("du sagst, X seien ..."),
		// unless the frame's verb follows ("was du sagst, ist ...").
		commaClause := !comp && c&repComma != 0 && j < len(toks) && toks[j].comma
		if commaClause {
			_, cv := m.match(j, repVerb)
			commaClause = cv&repVerb == 0
		}
		if j >= len(toks) || toks[j].brk != brkNone && !commaClause {
			i = j
			from = j
			continue
		}
		start := j
		for j < len(toks) && j-start < maxClause && toks[j].end-toks[start].start <= maxClauseBytes {
			if j > start && toks[j].brk != brkNone {
				break
			}
			if j > start {
				if ke, c := m.match(j, repEnd|repVerb); ke > 0 && (c&repEnd != 0 || j-start >= minClause) {
					break
				}
			}
			j++
		}
		if j-start >= minClause && condemned(start, j) {
			spans = append(spans, [4]int{toks[start].start, toks[j-1].end, toks[start].start, toks[j-1].end})
		}
		i = max(j, i+1)
		from = i
	}
	return spans, nil
}

// matcher looks up forms in the scanned words.
type matcher struct {
	r    *reporting
	toks []rtok
	buf  []byte
}

// match returns the length and classes of the longest form of a class in want starting at word
// i and not crossing a boundary, or 0 and 0.
func (m *matcher) match(i int, want repClass) (int, repClass) {
	t := m.toks[i]
	if t.long {
		return 0, 0
	}
	n := int(m.r.starts[string(m.buf[t.f0:t.f1])])
	n = min(n, len(m.toks)-i)
	for k := 2; k <= n; k++ { // a form does not cross a boundary
		if m.toks[i+k-1].brk != brkNone || m.toks[i+k-1].long {
			n = k - 1
			break
		}
	}
	for k := n; k >= 1; k-- {
		if c := m.r.forms[string(m.buf[t.f0:m.toks[i+k-1].f1])]; c&want != 0 {
			return k, c
		}
	}
	return 0, 0
}

// stem returns the classes of the longest stem word i starts with.
func (m *matcher) stem(i int) repClass {
	t := m.toks[i]
	w := m.buf[t.f0:t.f1]
	if t.long {
		return 0
	}
	return m.r.stems.longest(w)
}

// mergeSpans merges the sorted, non-overlapping explicit and implicit spans of s, keeping them
// only when the text outside all of them has at least minOutside words; otherwise it returns
// explicit.
func mergeSpans(s string, explicit, implicit [][4]int) [][4]int {
	if len(implicit) == 0 {
		return explicit
	}
	out := make([][4]int, 0, len(explicit)+len(implicit))
	a, b := explicit, implicit
	for len(a) > 0 || len(b) > 0 {
		if len(b) == 0 || len(a) > 0 && a[0][2] < b[0][2] {
			out = append(out, a[0])
			a = a[1:]
		} else {
			out = append(out, b[0])
			b = b[1:]
		}
	}
	if wordsOutside(s, out) < minOutside {
		return explicit
	}
	return out
}
