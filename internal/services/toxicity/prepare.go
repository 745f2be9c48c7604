package toxicity

import (
	"bufio"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/textnorm"
)

// Tokens the preparer puts into the text the model scores. They are plain lower-case words, so
// normalization keeps them as they are.
const (
	// tokenGroup replaces a word or phrase naming a group of people (groups.txt).
	tokenGroup = "zgrp"
	// tokenUser replaces an @mention, tokenURL a link: who is named or linked says nothing
	// about toxicity, and a model that learns handles learns who posted its training data.
	tokenUser = "zuser"
	tokenURL  = "zurl"
	// tokenQuote and tokenQuoteToxic replace a quoted passage inside a longer text (see
	// quoteSpans), the second when the passage alone scores at least quoteToxic. The model then
	// judges the frame around the quote: reporting or condemning abuse ("posts like ... get
	// reported", "the suspect shouted ...") is not abuse, endorsing it is.
	tokenQuote      = "zquo"
	tokenQuoteToxic = "zquotox"
	// TokenStrong and TokenMild follow a word or phrase of the abuse lexicon (lexicon.tsv) that
	// the word lists mark as strong or as mild or ambiguous.
	TokenStrong = "zlexa"
	TokenMild   = "zlexb"
)

// maxPhrase is the longest group or lexicon phrase, in words.
const maxPhrase = 3

// Preparer turns a text into what the model scores: its normal form (package textnorm), with
// every group name replaced by tokenGroup and every lexicon entry followed by its strength
// token. The group token lets the model learn what is said about groups rather than which group
// is named; the lexicon tokens carry what the word lists know into languages with little
// training data. A lexicon word on its own weighs what the model learned, never a verdict.
type Preparer struct {
	groups   map[string]bool
	lexicon  map[string]string // normal form -> TokenStrong or TokenMild
	polarity map[string]cue    // normal form (one to maxPhrase words) -> cue
	stems    stemSet[cue]      // normal form of a word's beginning -> cue
	// starts maps the first word of every group, lexicon and polarity form to the most words
	// such a form has in each list, so a word that starts none is dismissed in one lookup.
	starts map[string]phraseLens
	// rep, when not nil, holds the constructs with which condemned reported speech is read as
	// an implicit quote (see WithImplicitQuotes).
	rep *reporting
	// scratch pools the working memory of prepare (*prepScratch). Copies of the preparer
	// share it: what it holds is only ever used within one call.
	scratch *sync.Pool
}

// prepScratch is the working memory of one prepare call.
type prepScratch struct {
	words textnorm.Words
	items []item
	// counts holds the prefix counts of prepare, five slices of len(items)+1 one after another.
	counts []int
}

// A judgement or violence word next to the token of reported speech (an implicit quote) gets a
// quote cue (quoteCueTokens); next to a quoted passage it does not, so a quoted passage's frame
// reads exactly as with implicit quotes off. A reporting or condemning word next to reported
// speech gets its own token (tokenCtrImplicit) rather than the one it gets next to a quoted
// passage (tokenCtrQuote). Models record this reading under MetaQuoteCues, and loading refuses
// any other value than QuoteCuesApart.
const (
	// MetaQuoteCues is the model file's metadata key for where quote cues are given.
	MetaQuoteCues = "quote_cues"
	// QuoteCuesApart is the only value of MetaQuoteCues the service reads.
	QuoteCuesApart = "apart"
)

// Internal words for the token of an implicit quote, written by Prepare and turned back into
// tokenQuote and tokenQuoteToxic by prepare, which remembers that they stand for reported speech.
const (
	tokenImplicitQuote      = "zquoimpl"
	tokenImplicitQuoteToxic = "zquotoximpl"
)

// WithImplicitQuotes returns a copy of p that reads condemned reported speech as implicit
// quotes (ImplicitCondemned), with the constructs of a reporting list (lines
// "lang<TAB>class<TAB>form", see reporting.txt). The copy shares p's read-only lists.
func (p *Preparer) WithImplicitQuotes(reportingList string) (*Preparer, error) {
	rep, err := newReporting(reportingList)
	if err != nil {
		return nil, err
	}
	q := *p
	q.rep = rep
	return &q, nil
}

// phraseLens are the most words of a form starting with a given word, per list.
type phraseLens struct{ group, lexicon, polarity uint8 }

// index builds starts from the lists.
func (p *Preparer) index() {
	p.starts = map[string]phraseLens{}
	add := func(form string, set func(*phraseLens, uint8)) {
		first, _, _ := strings.Cut(form, " ")
		l := p.starts[first]
		set(&l, uint8(strings.Count(form, " ")+1))
		p.starts[first] = l
	}
	for form := range p.groups {
		add(form, func(l *phraseLens, n uint8) { l.group = max(l.group, n) })
	}
	for form := range p.lexicon {
		add(form, func(l *phraseLens, n uint8) { l.lexicon = max(l.lexicon, n) })
	}
	for form := range p.polarity {
		add(form, func(l *phraseLens, n uint8) { l.polarity = max(l.polarity, n) })
	}
}

// cue is what the polarity list says about a word.
type cue uint8

const (
	cueNone cue = iota
	cueNeg      // a negative judgement
	cuePos      // a positive judgement
	cueViol     // violence
	cueNot      // negation
	cueYou      // addresses the reader
	cueCtr      // reports or condemns abuse
)

var cueNames = map[string]cue{"neg": cueNeg, "pos": cuePos, "viol": cueViol, "not": cueNot, "you": cueYou, "ctr": cueCtr}

// Tokens after a word that reports or condemns abuse: always, and when a group name or a quoted
// passage is close by.
const (
	tokenCtr      = "zctr"
	tokenCtrGroup = "zgctr"
	tokenCtrQuote = "zqctr"
	// tokenCtrImplicit follows such a word next to reported speech.
	tokenCtrImplicit = "ziqctr"
	ctrNear          = 10
)

// cueTokens are the tokens that follow a judgement or violence word: [cue][negated][near],
// near being 0 (plain), 1 (a group name close by) or 2 ("you" close by).
var cueTokens = [...][2][3]string{
	cueNeg:  {{"zneg", "zgneg", "zyneg"}, {"znegx", "zgnegx", "zynegx"}},
	cuePos:  {{"zpos", "zgpos", "zypos"}, {"zposx", "zgposx", "zyposx"}},
	cueViol: {{"zviol", "zgviol", "zyviol"}, {"zviolx", "zgviolx", "zyviolx"}},
}

// Windows, in words, around a judgement word: negation words before and after it, group names,
// "you" and (with implicit quotes) quote tokens on either side.
const (
	notBefore, notAfter = 5, 2
	groupNear           = 6
	youNear             = 3
	quoteNear           = 6
)

// quoteCueTokens follow a judgement or violence word next to a quote token when the preparer
// reads implicit quotes: [cue][negated].
var quoteCueTokens = [...][2]string{
	cueNeg:  {"zqneg", "zqnegx"},
	cuePos:  {"zqpos", "zqposx"},
	cueViol: {"zqviol", "zqviolx"},
}

// NewPreparer reads the group list (lines "lang<TAB>form"), the polarity list (lines
// "lang<TAB>class<TAB>form", see polarity.txt) and the lexicon (lines "form<TAB>strong|mild");
// lines starting with # are comments. Forms are normalized.
func NewPreparer(groups, polarity, lexicon string) (*Preparer, error) {
	p := &Preparer{groups: map[string]bool{}, lexicon: map[string]string{}, polarity: map[string]cue{},
		scratch: &sync.Pool{New: func() any { return new(prepScratch) }}}
	err := eachLine(groups, func(f []string) error {
		if len(f) != 2 {
			return fmt.Errorf("want lang and form")
		}
		if form := NormalForm(f[1]); form != "" {
			p.groups[form] = true
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("groups: %w", err)
	}
	err = eachLine(polarity, func(f []string) error {
		if len(f) != 3 || cueNames[f[1]] == cueNone {
			return fmt.Errorf("want lang, class and form")
		}
		c := cueNames[f[1]]
		if stem, ok := strings.CutSuffix(f[2], "*"); ok {
			form := NormalForm(stem)
			if len([]rune(form)) < 4 || strings.Contains(form, " ") {
				return fmt.Errorf("stem %q: want one word of at least four letters", f[2])
			}
			p.stems.set(form, c)
			return nil
		}
		if form := NormalForm(f[2]); form != "" {
			p.polarity[form] = c
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("polarity: %w", err)
	}
	err = eachLine(lexicon, func(f []string) error {
		if len(f) != 2 || (f[1] != "strong" && f[1] != "mild") {
			return fmt.Errorf("want form and strong|mild")
		}
		form := NormalForm(f[0])
		if form == "" || p.groups[form] {
			return nil
		}
		tok := TokenMild
		if f[1] == "strong" {
			tok = TokenStrong
		}
		p.lexicon[form] = tok
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("lexicon: %w", err)
	}
	if len(p.groups) == 0 || len(p.lexicon) == 0 {
		return nil, fmt.Errorf("empty group list or lexicon")
	}
	p.index()
	return p, nil
}

func eachLine(s string, fn func([]string) error) error {
	sc := bufio.NewScanner(strings.NewReader(s))
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := fn(strings.Split(line, "\t")); err != nil {
			return fmt.Errorf("line %d: %w", n, err)
		}
	}
	return sc.Err()
}

// NormalForm returns the normal form of a word or phrase: its normalized words joined by single
// spaces, "" when it has none or more than maxPhrase.
func NormalForm(s string) string {
	var w textnorm.Words
	if err := textnorm.Normalize(context.Background(), s, &w, 0); err != nil || w.Len() == 0 || w.Len() > maxPhrase {
		return ""
	}
	return string(w.Text)
}

// quoteToxic is the score from which a quoted passage counts as toxic.
const quoteToxic = 0.5

// ScoreFunc scores a prepared text (one without quotes handled) with the model.
type ScoreFunc func(ctx context.Context, prepared string) (float64, error)

// Prepare returns the text the model scores for text. When score is not nil, every quoted
// passage (quoteSpans), and with implicit quotes every reported clause (implicitSpans), is
// prepared and scored on its own and replaced by tokenQuoteToxic or tokenQuote; with a nil
// score quotes are read as ordinary text. The work is linear in
// len(text): each word is normalized once, looked up at most 2*maxPhrase times and scored at
// most once more in its passage. It returns an error wrapping ctx.Err() when ctx is done.
func (p *Preparer) Prepare(ctx context.Context, text string, score ScoreFunc) (string, error) {
	if score == nil {
		return p.prepare(ctx, text)
	}
	spans := quoteSpans(text)
	explicit := spans // the quoted passages, in order, before reported speech joins them
	if p.rep != nil {
		implicit, err := p.rep.implicitSpans(ctx, text, spans)
		if err != nil {
			return "", err
		}
		spans = mergeSpans(text, spans, implicit)
	}
	if len(spans) == 0 {
		return p.prepare(ctx, text)
	}
	var outer strings.Builder
	outer.Grow(len(text))
	last := 0
	for _, sp := range spans {
		isExplicit := len(explicit) > 0 && explicit[0] == sp
		if isExplicit {
			explicit = explicit[1:]
		}
		inner, err := p.prepare(ctx, text[sp[0]:sp[1]])
		if err != nil {
			return "", err
		}
		pq, err := score(ctx, inner)
		if err != nil {
			return "", err
		}
		tok := tokenQuote
		if pq >= quoteToxic {
			tok = tokenQuoteToxic
		}
		if !isExplicit {
			tok = tokenImplicitQuote
			if pq >= quoteToxic {
				tok = tokenImplicitQuoteToxic
			}
		}
		outer.WriteString(text[last:sp[2]])
		outer.WriteString(" " + tok + " ")
		last = sp[3]
	}
	outer.WriteString(text[last:])
	return p.prepare(ctx, outer.String())
}

func (p *Preparer) prepare(ctx context.Context, text string) (string, error) {
	sc := p.scratch.Get().(*prepScratch)
	defer p.scratch.Put(sc)
	w := &sc.words
	w.Reset()
	if err := textnorm.Normalize(ctx, scrub(text), w, 0); err != nil {
		return "", err
	}
	items := slices.Grow(sc.items[:0], w.Len()) // one allocation at most: a word gives at most one item
	defer func() { sc.items = items[:0] }()
	for i := 0; i < w.Len(); {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return "", err
			}
		}
		lens := p.starts[string(w.Word(i))] // one lookup dismisses a word that starts no form
		if k := p.matchGroup(w, i, lens); k > 0 {
			items = append(items, item{tok: tokenGroup, group: true})
			i += k
			continue
		}
		switch string(w.Word(i)) {
		case tokenImplicitQuote:
			items = append(items, item{tok: tokenQuote, implicitQuote: true})
			i++
			continue
		case tokenImplicitQuoteToxic:
			items = append(items, item{tok: tokenQuoteToxic, implicitQuote: true})
			i++
			continue
		}
		kl, tok := p.matchLexicon(w, i, lens)
		kc, c := p.matchCue(w, i, lens)
		k := max(kl, kc, 1)
		items = append(items, item{from: w.Start(i), to: w.Ends[i+k-1], lex: tok, cue: c})
		i += k
	}
	// Prefix counts of negation words, group names and "you", so every window is O(1).
	n := len(items) + 1
	sc.counts = append(sc.counts[:0], make([]int, 5*n)...)
	nots, groups, yous, quotes := sc.counts[:n], sc.counts[n:2*n], sc.counts[2*n:3*n], sc.counts[3*n:4*n]
	// cueQuotes counts the quote tokens a judgement next to gets a quote cue: those of reported
	// speech only.
	cueQuotes := sc.counts[4*n:]
	for i, it := range items {
		nots[i+1], groups[i+1], yous[i+1], quotes[i+1] = nots[i], groups[i], yous[i], quotes[i]
		cueQuotes[i+1] = cueQuotes[i]
		if it.implicitQuote {
			cueQuotes[i+1]++
		}
		switch {
		case it.cue == cueNot:
			nots[i+1]++
		case it.cue == cueYou:
			yous[i+1]++
		case it.group:
			groups[i+1]++
		case it.isQuote(w):
			quotes[i+1]++
		}
	}
	count := func(pre []int, from, to int) int { // items in [from, to)
		from, to = max(from, 0), min(to, len(items))
		if from >= to {
			return 0
		}
		return pre[to] - pre[from]
	}
	var b strings.Builder
	b.Grow(len(w.Text) + len(w.Text)/4)
	emit := func(s string) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	for i, it := range items {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		if it.tok != "" {
			b.WriteString(it.tok)
		} else {
			b.Write(w.Text[it.from:it.to])
		}
		if it.lex != "" {
			emit(it.lex)
		}
		if it.cue == cueCtr {
			emit(tokenCtr)
			if count(groups, i-ctrNear, i+ctrNear+1) > 0 {
				emit(tokenCtrGroup)
				emit(tokenCtrGroup)
			}
			implicitNear := count(cueQuotes, i-ctrNear, i+ctrNear+1)
			near := count(quotes, i-ctrNear, i+ctrNear+1) - implicitNear
			if near > 0 {
				emit(tokenCtrQuote)
				emit(tokenCtrQuote)
			}
			if implicitNear > 0 {
				emit(tokenCtrImplicit)
				emit(tokenCtrImplicit)
			}
			continue
		}
		if it.cue != cueNeg && it.cue != cuePos && it.cue != cueViol {
			continue
		}
		negated := 0
		if count(nots, i-notBefore, i)+count(nots, i+1, i+1+notAfter) > 0 {
			negated = 1
		}
		toks := cueTokens[it.cue][negated]
		emit(toks[0])
		// The tokens that say whom a judgement is about come twice: they are what carries over
		// between languages and phrasings, so the model should lean on them more than on any
		// one n-gram.
		if count(groups, i-groupNear, i+groupNear+1) > 0 {
			emit(toks[1])
			emit(toks[1])
		}
		if count(yous, i-youNear, i+youNear+1) > 0 {
			emit(toks[2])
			emit(toks[2])
		}
		// With implicit quotes, a judgement next to a quote token says what the frame thinks of
		// the quote ("saying X is disgusting"), which is not abuse of anyone by itself.
		if p.rep != nil && count(cueQuotes, i-quoteNear, i+quoteNear+1) > 0 {
			emit(quoteCueTokens[it.cue][negated])
			emit(quoteCueTokens[it.cue][negated])
		}
	}
	return b.String(), nil
}

// item is a word or phrase of the prepared text with what the lists say about it: the token
// tok that replaces it, or else the words' bytes [from, to) of the normalized text.
type item struct {
	tok      string
	from, to int
	group    bool
	lex      string // TokenStrong, TokenMild or ""
	cue      cue
	// implicitQuote marks the token of reported speech.
	implicitQuote bool
}

// isQuote reports whether it is the token of a quoted passage: one prepare put there, or the
// word Prepare wrote in place of the passage (w is the normalized text it indexes).
func (it item) isQuote(w *textnorm.Words) bool {
	if it.tok != "" {
		return it.tok == tokenQuote || it.tok == tokenQuoteToxic
	}
	word := string(w.Text[it.from:it.to])
	return word == tokenQuote || word == tokenQuoteToxic
}

// matchCue returns the length and cue of the longest polarity phrase starting at word i; failing
// that, the cue of the longest stem word i starts with, trying it also without an elided
// article or pronoun ("naime" from "n'aime", "lhomme" from "l'homme"); or 0 and cueNone. lens
// are the word's entry in p.starts.
func (p *Preparer) matchCue(w *textnorm.Words, i int, lens phraseLens) (int, cue) {
	for k := min(int(lens.polarity), w.Len()-i); k >= 1; k-- {
		if c, ok := p.polarity[string(w.Text[w.Start(i):w.Ends[i+k-1]])]; ok {
			return k, c
		}
	}
	word := w.Word(i)
	if c := p.stemCue(word); c != cueNone {
		return 1, c
	}
	if len(word) >= 5 && strings.IndexByte("nldjsctm", word[0]) >= 0 && strings.IndexByte("aeiouh", word[1]) >= 0 {
		rest := word[1:]
		if c, ok := p.polarity[string(rest)]; ok {
			return 1, c
		}
		if c := p.stemCue(rest); c != cueNone {
			return 1, c
		}
	}
	return 0, cueNone
}

// stemCue returns the cue of the longest stem word starts with.
func (p *Preparer) stemCue(word []byte) cue { return p.stems.longest(word) }

// matchGroup returns the length of the longest group phrase (at most lens.group words) starting
// at word i, or 0.
func (p *Preparer) matchGroup(w *textnorm.Words, i int, lens phraseLens) int {
	for k := min(int(lens.group), w.Len()-i); k >= 1; k-- {
		if p.groups[string(w.Text[w.Start(i):w.Ends[i+k-1]])] {
			return k
		}
	}
	return 0
}

// matchLexicon returns the length and token of the longest lexicon phrase (at most lens.lexicon
// words) starting at word i, or 0 and "".
func (p *Preparer) matchLexicon(w *textnorm.Words, i int, lens phraseLens) (int, string) {
	for k := min(int(lens.lexicon), w.Len()-i); k >= 1; k-- {
		if tok, ok := p.lexicon[string(w.Text[w.Start(i):w.Ends[i+k-1]])]; ok {
			return k, tok
		}
	}
	return 0, ""
}

// scrub replaces @mentions with tokenUser, links with tokenURL and the "|LBR|" line-break
// marks of some tweet corpora with a space, in one pass.
func scrub(s string) string {
	if !strings.Contains(s, "@") && !strings.Contains(s, "|LBR|") && !strings.Contains(s, "http://") &&
		!strings.Contains(s, "https://") && !strings.Contains(s, "www.") {
		return s // nothing to replace: the loop below would copy s byte for byte
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		atStart := i == 0 || isSpaceByte(s[i-1]) || s[i-1] == '(' || s[i-1] == '"'
		switch {
		case atStart && s[i] == '@' && i+1 < len(s) && isHandleByte(s[i+1]):
			j := i + 1
			for j < len(s) && isHandleByte(s[j]) {
				j++
			}
			b.WriteString(" " + tokenUser + " ")
			i = j
		case atStart && (strings.HasPrefix(s[i:], "http://") || strings.HasPrefix(s[i:], "https://") || strings.HasPrefix(s[i:], "www.")):
			j := i
			for j < len(s) && !isSpaceByte(s[j]) {
				j++
			}
			b.WriteString(" " + tokenURL + " ")
			i = j
		case s[i] == '|' && strings.HasPrefix(s[i:], "|LBR|"):
			b.WriteByte(' ')
			i += len("|LBR|")
		default:
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func isHandleByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// Quotation marks: each opening mark with the marks that close it.
var quoteClose = map[rune]string{
	'"': `"`, '“': `”“`, '„': `“”`, '«': `»`, '»': `«`, '‹': `›`, '‚': `‘’`,
}

// maxQuote bounds a quoted passage, in bytes: a mark with no closing mark within it opens
// nothing, so scanning stays linear.
const maxQuote = 600

// minOutside is how many words a text must have outside its quoted passages for them to count
// as quotes: a text that is all quotation is read as it stands, so quote marks cannot hide
// abuse. minQuoted is how many words a passage needs: one or two quoted words are emphasis or
// irony ("so-called"), not reported speech.
const (
	minOutside = 3
	minQuoted  = 3
)

// quoteSpans finds the quoted passages of s: for each, the byte range of its content and of the
// passage with its marks, [contentStart, contentEnd, markStart, markEnd]. A passage is not
// empty, at most maxQuote bytes, and does not start with "@" (the way tweets quote a retweet).
// A passage has at least minQuoted words. It returns nil when the text outside the passages has
// fewer than minOutside words.
func quoteSpans(s string) [][4]int {
	var spans [][4]int
	// Per set of closing marks: the position of the next closing mark found (or -1), and how far
	// the text has been searched without finding one, so no byte is searched twice per set.
	type memo struct{ found, upTo int }
	memos := map[string]*memo{}
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf && c != '"' { // the only ASCII quote mark
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		closers, ok := quoteClose[r]
		if !ok {
			i += n
			continue
		}
		start := i + n
		m := memos[closers]
		if m == nil {
			m = &memo{found: -1}
			memos[closers] = m
		}
		if m.found < start {
			m.found = -1
			j := max(start, m.upTo)
			for j < len(s) && j-start <= maxQuote {
				c, k := utf8.DecodeRuneInString(s[j:])
				if strings.ContainsRune(closers, c) {
					m.found = j
					break
				}
				j += k
			}
			if m.found < 0 {
				m.upTo = j
			}
		}
		end := m.found
		if end < 0 || end-start > maxQuote {
			i = start
			continue
		}
		_, cn := utf8.DecodeRuneInString(s[end:])
		content := strings.TrimSpace(s[start:end])
		if len(strings.Fields(content)) >= minQuoted && !strings.HasPrefix(content, "@") {
			spans = append(spans, [4]int{start, end, i, end + cn})
		}
		i = end + cn
	}
	if len(spans) == 0 {
		return nil
	}
	if wordsOutside(s, spans) < minOutside {
		return nil
	}
	return spans
}

// wordsOutside counts the words of s outside the passages of spans (each span's third and
// fourth values are the byte range of the whole passage, marks included).
func wordsOutside(s string, spans [][4]int) int {
	outside, last := 0, 0
	for _, sp := range spans {
		outside += len(strings.Fields(s[last:sp[2]]))
		last = sp[3]
	}
	return outside + len(strings.Fields(s[last:]))
}
