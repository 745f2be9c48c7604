// Package names finds person names in text with a statistical tagger: an averaged perceptron
// over the text's words that labels each word outside, beginning or inside a name (BIO),
// greedily from left to right. Its features are the word, its shape, prefixes and suffixes,
// capitalisation, its neighbours, the punctuation and line breaks around it, a gazetteer of
// given names and surnames of many locales, a small lexicon of titles, cue words, months,
// weekdays, places, organisations, products and roles, the labels already given, and whether
// the word was tagged as a name earlier in the text. The weights are hashed into a fixed number
// of buckets and stored as 16-bit integers.
//
// Rules written by hand then correct the tagger where the evidence stands further away than it
// looks: names after titles and in lists, names cut short or run on, the speakers of a dialogue
// and names used as modifiers ("the Jensen novel"), and the surnames inside firms, ships, titles
// and street corners ("Sullivan, Brooks and Hale LLP", "the Princess Royal").
//
// The model and the gazetteer are trained by scripts/train/pii and embedded; see MODEL.md.
// Tagging is linear in the text: one tokenizing pass, one pass per line for the log-line rule,
// and a bounded number of features per word.
package names

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"slices"
	"strings"
	"sync"
)

// Span is a name: text[Start:End], byte offsets.
type Span struct{ Start, End int }

// Model is a trained tagger: the weights of every feature bucket for each label, and the
// gazetteer its features look words up in.
type Model struct {
	bits    uint
	weights []int16 // bucket*numLabels + label
	scale   float32 // weight = int16 / scale
	gaz     *Gazetteer
	clus    *Clusters
	// viterbi: the weights are a structured perceptron's, decoded with Viterbi (see decode);
	// otherwise the greedy tagger's.
	viterbi bool
	// without names the rules switched off (see WithoutRules).
	without map[string]bool
	// biasB is added to the score of B (a name starts here) at every token, in the units of
	// the weights before quantisation: a positive bias trades precision for recall. The trainer
	// records it in the model file; it is chosen on the development sets.
	biasB float64
	// meta: the model file's other metadata (see modelfile.go).
	meta map[string]string
}

//go:embed tagger.model
var modelFile []byte

//go:embed gazetteer.bin.gz
var gazetteerFile []byte

// clustersFile is the embedded word classes (none yet: the embedded tagger predates them).
var clustersFile []byte

// Default returns the embedded model, loaded once per process.
var Default = sync.OnceValues(func() (*Model, error) {
	return Load(Files{Model: modelFile, Gazetteer: gazetteerFile, Clusters: clustersFile})
})

// Files are the bytes of the files the trainer writes for one model.
type Files struct {
	Model     []byte // tagger.model
	Gazetteer []byte // gazetteer.bin.gz
	Clusters  []byte // clusters.bin.gz; nil for a model without word classes
}

// Load reads a tagger, its gazetteer and its word classes. The model file records the SHA-256
// of every file it was trained with (see Record): the gazetteer, the word classes and the
// embedded word lists (lists/*.txt). Load refuses a file or list that differs, and a model that
// records no word classes gets none.
func Load(files Files) (*Model, error) {
	m, err := ReadModel(bytes.NewReader(files.Model))
	if err != nil {
		return nil, err
	}
	if err := m.checkLists(); err != nil {
		return nil, err
	}
	if err := m.check(GazetteerFile, files.Gazetteer); err != nil {
		return nil, err
	}
	if m.gaz, err = ReadGazetteer(bytes.NewReader(files.Gazetteer)); err != nil {
		return nil, err
	}
	if _, ok := m.meta[hashKey(ClustersFile)]; ok {
		if err := m.check(ClustersFile, files.Clusters); err != nil {
			return nil, err
		}
		if m.clus, err = ReadClusters(bytes.NewReader(files.Clusters)); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// WithoutRules returns a copy of m with the named rules after the tagger switched off, for
// measuring what each is worth (go run ./scripts/eval/pii -without NAME). It returns an error
// naming a rule that does not exist.
func (m *Model) WithoutRules(names ...string) (*Model, error) {
	cp := *m
	cp.without = map[string]bool{}
	for k := range m.without {
		cp.without[k] = true
	}
	for _, n := range names {
		if !slices.Contains(RuleNames, n) {
			return nil, fmt.Errorf("names: no rule %q", n)
		}
		cp.without[n] = true
	}
	return &cp, nil
}

// WithBias returns a copy of m whose score of B is raised by b (see Model.biasB).
func (m *Model) WithBias(b float64) *Model {
	cp := *m
	cp.biasB = b
	return &cp
}

// Bias is the bias of the score of B (see WithBias).
func (m *Model) Bias() float64 { return m.biasB }

// WithClusters returns a copy of m that reads word classes from c (nil: none).
func (m *Model) WithClusters(c *Clusters) *Model {
	cp := *m
	cp.clus = c
	return &cp
}

// WithGazetteer returns a copy of m that looks words up in g.
func (m *Model) WithGazetteer(g *Gazetteer) *Model {
	c := *m
	c.gaz = g
	return &c
}

// checkEvery is how many tokens the tagger handles between two looks at its context.
const checkEvery = 1024

// Tag returns the names in text, in order. It returns ctx.Err() when ctx is done first.
func (m *Model) Tag(ctx context.Context, text string) ([]Span, error) {
	names, _, err := m.TagAll(ctx, text)
	return names, err
}

// TagAll returns the names in text, in order, and the words the tagger first took for names
// that the rules after it found to belong to something else: a firm, a place, a title, a band
// ("Fairfax" in "Fairfax County", "Anderson" in "Cal Anderson Park"). A caller that redacts
// every occurrence of a name it found once should leave those words alone, since the words
// around them say they do not name the person there.
func (m *Model) TagAll(ctx context.Context, text string) (names, takenBack []Span, err error) {
	toks := Tokenize(text)
	labels, back, err := m.labels(ctx, text, toks)
	if err != nil {
		return nil, nil, err
	}
	return Spans(text, toks, labels), Spans(text, toks, back), nil
}

// labels tags every token of text greedily from left to right. It also returns, as labels, the
// names that dropNonPeople took back.
func (m *Model) labels(ctx context.Context, text string, toks []Token) (labels, back []uint8, err error) {
	f := featurizer{text: text, toks: toks, bits: m.bits, buf: make([]uint32, 0, 64), gaz: m.gaz, clus: m.clus}
	f.info = analyse(text, toks, m.gaz, make([]byte, 0, 64))
	if m.viterbi {
		labels, err = m.decode(&f, func(i int) error {
			if i%checkEvery == checkEvery-1 {
				return ctx.Err()
			}
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	} else {
		labels = m.greedy(&f)
	}
	f.off = m.without
	afterTitles(&f, labels)
	if !f.off["join-adjacent"] {
		joinAdjacent(&f, labels)
	}
	if !f.off["extend-left"] {
		extendLeft(&f, labels)
	}
	if !f.off["known-pairs"] {
		markKnownPairs(&f, labels)
	}
	if !f.off["lone-given"] {
		markLoneGiven(&f, labels)
	}
	if !f.off["fill-lists"] {
		fillLists(&f, labels)
	}
	trimTail(&f, labels)
	if !f.off["drop-hollow"] {
		dropHollow(&f, labels)
	}
	addPeople(&f, labels)
	back = slices.Clone(labels)
	dropNonPeople(&f, labels)
	for i, y := range labels {
		switch {
		case y != O:
			back[i] = O
		case back[i] == I && (i == 0 || back[i-1] == O):
			back[i] = B
		}
	}
	return labels, back, ctx.Err()
}

// greedy tags every token of f greedily from left to right.
func (m *Model) greedy(f *featurizer) []uint8 {
	labels := make([]uint8, len(f.toks))
	seen := map[uint64]bool{}
	y1, y2 := O, O
	for i := range f.toks {
		y := O
		ti := &f.info[i]
		if ti.candidate || (y1 != O && ti.kind == Word && !ti.log) {
			var score [numLabels]int32
			for _, b := range f.features(i, y1, y2, seen[ti.lw]) {
				w := m.weights[int(b)*numLabels : int(b)*numLabels+numLabels]
				score[O] += int32(w[O])
				score[B] += int32(w[B])
				score[I] += int32(w[I])
			}
			y = best(score[:], y1)
			if y != O {
				seen[ti.lw] = true
			}
		}
		labels[i] = uint8(y)
		y2, y1 = y1, y
	}
	return labels
}

// joinAdjacent makes a name that the tagger began right after another one, with only a space
// between them, part of it: two people's names are not written side by side without a comma or
// a word between them, so "Johannes Kuijpers" tagged as two names is one. A word that cannot be
// a name on its own (the "s" of "Nicholson 's") is left for dropHollow.
func joinAdjacent(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		if labels[i] == B && labels[i-1] != O && f.info[i].gap == 0 && !f.hollow(i) {
			labels[i] = I
		}
	}
}

// extendLeft adds to a name the capitalised word right before it (across at most two capitalised
// particles) when that word is a given name or surname the gazetteer knows, or a word it does not
// know at all: "Liu Yang" tagged only as "Yang", "Giovanni De Luca" as "Luca", "Krzysztofa
// Nowaka" (an inflected given name) as "Nowaka". At the start of a sentence or line the word must
// be no common word: "Tell Anna" stays.
func extendLeft(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		if labels[i] != B {
			continue
		}
		k := i - 1
		for n := 0; n < 2 && k > 0 && f.info[k+1].gap == 0 && f.isWord(k) && f.info[k].caps != capAll &&
			f.class(k)&ClsParticle != 0; n++ {
			k--
		}
		if f.info[k+1].gap != 0 || labels[k] != O || !f.nameBefore(k) {
			continue
		}
		labels[k] = B
		for j := k + 1; j <= i; j++ {
			labels[j] = I
		}
	}
}

// markKnownPairs makes a name of two capitalised words the tagger left out when the gazetteer
// knows both as names and neither as a common word, and one of them as a given name: "voor Sanne
// Jansen", "the order for Wang Fang". Lexicon words (places, organisations, titles...) are never
// taken.
func markKnownPairs(f *featurizer, labels []uint8) {
	known := func(k int) bool {
		tk := &f.info[k]
		return f.isWord(k) && tk.caps == capInit && !tk.log && tk.runes >= 2 && f.class(k) == 0 &&
			tk.gaz&(Given|Surname) != 0 && tk.gaz&Common == 0
	}
	for i := 0; i+1 < len(labels); i++ {
		j := i + 1
		if labels[i] != O || labels[j] != O || f.info[j].gap != 0 || !known(i) || !known(j) ||
			(f.info[i].gaz|f.info[j].gaz)&Given == 0 {
			continue
		}
		if j+1 < len(labels) && f.info[j+1].gap == 0 && f.isWord(j+1) && f.info[j+1].caps == capInit {
			continue // part of a longer capitalised phrase: left to the tagger and the rules
		}
		if i > 0 && f.info[i].gap == 0 && f.isWord(i-1) && f.info[i-1].caps == capInit {
			continue
		}
		labels[i], labels[j] = B, I
		i = j
	}
}

// markLoneGiven makes a name of one capitalised word the tagger left out when the gazetteer knows
// it as a given name and not as a common word, and it stands alone inside a sentence after a word
// in lower case: "lavoro con Federico da due anni", "I asked Maria about the refund". Lexicon
// words (places, organisations, titles...) are never taken, nor a word next to another
// capitalised one.
func markLoneGiven(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		ti := &f.info[i]
		if labels[i] != O || !f.isWord(i) || ti.caps != capInit || ti.log || ti.runes < 3 || ti.gaz&Given == 0 ||
			ti.gaz&Common != 0 || f.class(i) != 0 || ti.gap != 0 || !f.isWord(i-1) || f.info[i-1].caps != capLower ||
			labels[i-1] != O || !withWords[f.info[i-1].lw] {
			continue
		}
		if i+1 < len(labels) && f.info[i+1].gap == 0 && f.capital(i+1) {
			continue
		}
		labels[i] = B
	}
}

// withWords are "with" and "for" in the eight languages: a given name after them is a person
// ("lavoro con Federico", "ein Termin für Kurt").
var withWords = hashSet(`with for con para avec pour mit für met voor com z ze dla`)

// nameBefore reports whether token k may be added to the front of the name after it (see
// extendLeft).
func (f *featurizer) nameBefore(k int) bool {
	tk := &f.info[k]
	if !f.isWord(k) || tk.caps != capInit || tk.log || tk.runes < 2 || f.class(k) != 0 || titleHeads[tk.lw] ||
		pluralTitles[tk.lw] || personTitles[tk.lw] {
		// "the Princess Royal" is a title (see titleTail); "die Herren Fezzi" a list.
		return false
	}
	if t := f.toks[k]; len(trimPossessive([]byte(f.text[t.Start:t.End]))) < int(t.End-t.Start) {
		// "Panjiva's Riku Andou": a possessive belongs to another name or firm.
		return false
	}
	if tk.gap&(GapStart|GapNewline|GapBlank|GapSent|GapColon|GapQuote) != 0 && tk.gaz&Common != 0 {
		return false
	}
	return tk.gaz&(Given|Surname) != 0
}

// listAnd holds the hashes of the words that join the last two items of a list.
var listAnd = hashSet(`and or und oder et ou y o e en of i lub`)

// fillLists makes a capitalised word a name when it is an item of a list whose two items on one
// side, or the items right before and after it, are one-word names the tagger found: "They had
// 6: Gaetane, Hannah, Anthony and Derek" ("Gaetane" is in no name list). Only one-word items are
// looked at, and a word of a class that is never a name (places, months, organisations...) is
// left alone.
func fillLists(f *featurizer, labels []uint8) {
	for i := range labels {
		if labels[i] != O || !f.listCandidate(i) {
			continue
		}
		prev, next := f.listItem(labels, i, -1), f.listItem(labels, i, +1)
		var prev2, next2 int = -1, -1
		if prev >= 0 {
			prev2 = f.listItem(labels, prev, -1)
		}
		if next >= 0 {
			next2 = f.listItem(labels, next, +1)
		}
		named := func(k int) bool { return k >= 0 && labels[k] == B && !inLongerName(labels, k) }
		if named(prev) && named(next) || named(next) && named(next2) || named(prev) && named(prev2) {
			labels[i] = B
		}
	}
}

// listCandidate reports whether token i may be filled in as a name by fillLists.
func (f *featurizer) listCandidate(i int) bool {
	ti := &f.info[i]
	return ti.kind == Word && !ti.log && (ti.caps == capInit || ti.caps == capLower && ti.gaz&(Given|Surname) != 0) &&
		f.class(i)&^ClsCue == 0 && ti.gaz&Common == 0
}

// listItem returns the token of the one-word list item next to token i in direction dir (-1 or
// +1), or -1: the items are separated by a comma, or by "and" and its equivalents.
func (f *featurizer) listItem(labels []uint8, i, dir int) int {
	// The separator after an item is the gap before the next token.
	sepAt := i
	if dir > 0 {
		sepAt = i + 1
	}
	if sepAt <= 0 || sepAt >= len(labels) {
		return -1
	}
	k := i + dir
	if f.info[sepAt].gap&GapComma == 0 {
		if f.info[sepAt].gap != 0 || !listAnd[f.info[k].lw] {
			return -1
		}
		k += dir
		if k < 0 || k >= len(labels) || f.info[k-min(dir, 0)].gap != 0 {
			return -1
		}
	}
	if k < 0 || k >= len(labels) || f.info[k].kind != Word {
		return -1
	}
	return k
}

// trimTail takes lower-case words that cannot end a name off the end of one: particles,
// function words, single letters, weekdays and months ("tell sarah i said hi", "fala com o
// joão amanhã"). A name never ends in "de", "i" or "amanhã"; in lower-case chat the tagger
// sometimes runs on into them.
func trimTail(f *featurizer, labels []uint8) {
	if !f.off["cut-run-on"] {
		cutRunOn(f, labels)
	}
	if !f.off["cut-after-possessive"] {
		cutAfterPossessive(f, labels)
	}
	if !f.off["trim-role"] {
		trimRole(f, labels)
	}
	if !f.off["drop-pronoun-i"] {
		dropPronounI(f, labels)
	}
	for i := len(labels) - 1; i > 0 && !f.off["trim-lower-tail"]; i-- {
		if labels[i] != I || i+1 < len(labels) && labels[i+1] == I {
			continue
		}
		for j := i; j > 0 && labels[j] == I && f.endsNot(j); j-- {
			labels[j] = O
		}
	}
	if !f.off["trim-common-tail"] {
		trimCommonTail(f, labels)
	}
}

// trimCommonTail takes lower-case everyday words off the end of a name, in a text whose writer
// uses capitals: "Lucy both sing", "Dolly Varden fry". A writer who capitalises names does not
// write the last word of one in lower case; a surname the lists know ("Anna schmidt") stays, and
// so does a word the lists do not know as an everyday word (OCR's "Gru ber").
func trimCommonTail(f *featurizer, labels []uint8) {
	eachName(labels, func(i, j int) {
		k := j
		for k > i+1 && f.isWord(k-1) && f.info[k-1].caps == capLower && f.info[k-1].gaz&Common != 0 &&
			f.info[k-1].gaz&(Given|Surname) == 0 && f.class(k-1)&ClsParticle == 0 {
			k--
		}
		if k < j && f.usesCapitals() {
			clear(labels[k:j])
		}
	})
}

// cutAfterPossessive ends a name at a word with a possessive 's: what follows is what the person
// owns or made ("James Brown's Funky Drummer", "Anna's Bakery"). When a given name follows, the
// name is left as the tagger made it: in "Panjiva's Riku Andou" the person comes after a firm's
// possessive, and a cut would keep the firm and lose the person.
func cutAfterPossessive(f *featurizer, labels []uint8) {
	for k := 0; k+1 < len(labels); k++ {
		if labels[k] == O || labels[k+1] != I || !f.isWord(k) || f.info[k+1].gaz&Given != 0 {
			continue
		}
		t := f.toks[k]
		w := f.text[t.Start:t.End]
		if !strings.HasSuffix(w, "'s") && !strings.HasSuffix(w, "’s") || len(w) < 4 {
			continue
		}
		for m := k + 1; m < len(labels) && labels[m] == I; m++ {
			labels[m] = O
		}
	}
}

// dropPronounI takes the English pronoun "I" out of a name: a lone capital I, with no full stop
// after it (an initial has one), before a word in lower case, that starts a name or is set off
// from the name before it by punctuation ("Anna: I will check it"). Right after a name it is a
// regnal number ("Keizer Napoleon I ontleend") and stays, so "Anna I will" keeps it too.
func dropPronounI(f *featurizer, labels []uint8) {
	for k := range labels {
		if labels[k] == O || labels[k] == I && f.info[k].gap == 0 || k+1 >= len(labels) || f.info[k+1].gap != 0 ||
			!f.isWord(k+1) || f.info[k+1].caps != capLower {
			continue
		}
		t := f.toks[k]
		if f.text[t.Start:t.End] != "I" {
			continue
		}
		labels[k] = O
		if labels[k+1] == I {
			labels[k+1] = B
		}
	}
}

// trimRole takes a lower-case role or kin word off the start of a name that goes on with a
// capitalised word ("a su hermana Lucía", "my colleague Anna Weber"), and a capitalised one after
// a possessive ("Mein Sohn Lukas"). The word says who the person
// is to the writer; it is not part of the name.
func trimRole(f *featurizer, labels []uint8) {
	eachName(labels, func(i, j int) {
		if j-i >= 2 && (f.info[i].caps == capLower && f.class(i)&ClsRole != 0 || f.encliticVerb(i) || f.ownedRole(i)) &&
			f.info[i+1].caps != capLower {
			labels[i], labels[i+1] = O, B
		}
	})
}

// ownedRole reports whether token i is a capitalised role or kin word after a possessive, as
// German writes them: "Mein Sohn Lukas", "meine Kollegin Anna Weber".
func (f *featurizer) ownedRole(i int) bool {
	if i == 0 || f.info[i].caps != capInit || f.info[i].gap != 0 || !(kinNouns[f.info[i].lw] || f.class(i)&ClsRole != 0) {
		return false
	}
	p := f.info[i-1].lw
	return possessiveWords[p] || germanPossessives[p]
}

// clitics are the object pronouns Portuguese, Spanish and Italian attach to a verb with a hyphen
// or without: "Chamo-me Inês Ferreira", "Chama-se Rui".
var clitics = hashSet(`me te se nos vos lhe lhes lo la le`)

// encliticVerb reports whether token i is a word with a hyphen before a clitic pronoun in lower
// case ("Chamo-me"), which no name has ("Jean-Pierre" goes on with a capital).
func (f *featurizer) encliticVerb(i int) bool {
	if !f.isWord(i) {
		return false
	}
	t := f.toks[i]
	w := f.text[t.Start:t.End]
	h := strings.LastIndexByte(w, '-')
	return h > 0 && clitics[fnv(w[h+1:])]
}

// cutRunOn ends a name at a lower-case particle or function word inside it when every word after
// it in the name is written in lower case and known as no name: "soy maría josé y quería saber",
// "c'est Jean-Baptiste Lefèvre de la compta". "Ortega y Gasset", "joão da silva" and "sanne de
// vries" keep their surnames, which are capitalised or known.
func cutRunOn(f *featurizer, labels []uint8) {
	eachName(labels, func(i, j int) {
		for k := i + 1; k < j; k++ {
			if f.info[k].caps != capLower || !f.hollow(k) || f.info[k].runes == 1 && !listAnd[f.info[k].lw] {
				// A single letter is an initial ("eric g. samoylova"), unless it is "y", "e"...
				continue
			}
			if f.unknownLowerTail(k+1, j) {
				clear(labels[k:j])
			}
			return
		}
	})
}

// unknownLowerTail reports whether tokens i to j-1 include a word, and every word among them is
// written in lower case and is no given name or surname the gazetteer knows; particles and
// function words do not count either way.
func (f *featurizer) unknownLowerTail(i, j int) bool {
	found := false
	for k := i; k < j; k++ {
		ti := &f.info[k]
		if ti.caps != capLower {
			return false
		}
		if f.hollow(k) {
			continue
		}
		if ti.gaz&(Given|Surname) != 0 {
			return false
		}
		found = true
	}
	return found
}

// endsNot reports whether token i is a lower-case word that cannot be the last of a name.
func (f *featurizer) endsNot(i int) bool {
	ti := &f.info[i]
	return ti.kind == Word && ti.caps == capLower && (f.hollow(i) || f.class(i)&(ClsMonth|ClsWeekday) != 0)
}

// dropHollow removes every name made only of words that cannot be a name on their own: particles
// and function words ("van" in "echtg. van A. Riet"), titles other than the few that are also
// given names ("Sir" in "Excuse me, Sir bot"; "Don" stays, see titleNames), and single lower-case
// letters (the "s" of "Nicholson 's"). The tagger scores such words because the gazetteer knows many of them as
// names somewhere ("Van", "De", "La"), but alone they never are one.
func dropHollow(f *featurizer, labels []uint8) {
	for i := 0; i < len(labels); {
		if labels[i] == O {
			i++
			continue
		}
		j, hollow := i, true
		for ; j < len(labels) && (j == i || labels[j] == I); j++ {
			// "entro domani": a day in lower case is no name either ("June" and "May" are, so
			// months are not dropped).
			hollow = hollow && (f.hollow(j) || f.info[j].caps == capLower && f.class(j)&ClsWeekday != 0)
		}
		if hollow {
			for k := i; k < j; k++ {
				labels[k] = O
			}
		}
		i = j
	}
}

// hollow reports whether token i cannot be a name on its own (see dropHollow).
func (f *featurizer) hollow(i int) bool {
	ti := &f.info[i]
	if ti.kind != Word {
		return false
	}
	if ti.runes <= 1 {
		return ti.caps == capLower
	}
	c := f.class(i)
	return c&(ClsParticle|ClsFunction) != 0 || c&ClsTitle != 0 && !titleNames[ti.lw]
}

// titleNames are the titles that are also given names people go by alone ("Don", "Dona", "Sen"). The
// gazetteer knows many more titles as names somewhere ("Sir", "Miss", "Captain"), but alone
// those address someone without naming them.
var titleNames = hashSet(`don dona doña sen`)

// personTitles are honorifics that, in front of a capitalised word, make it a name whatever the
// tagger scored ("Egregio Sig. Esposito", "Frau Özdemir"). Ambiguous ones (Dr, which is also
// "Drive"; M, Me; Don) are left to the tagger.
var personTitles = hashSet(`mr mrs ms mx miss herr frau fräulein mme mlle monsieur madame
	mademoiselle sr sra srta señor señora señorita dott dottssa sig signor signora dhr mevr mevrouw
	meneer pan pani panna senhor senhora doña heer heeren mister sieur mgr dottor dottore dottoressa
	doutor doutora pana panu panem panie panią`)

// selfIntro holds the hashes of the English words by which writers introduce themselves: after
// "I am" or "I'm", a capitalised word the gazetteer knows as a given name starts a name. The
// tagger alone misses "I am Jane Doe": in its German training text "am" before a capital is a
// preposition ("am Montag", "am Bahnhof") and never precedes a name.
var selfIntro = struct{ i, am, im, imCurly uint64 }{fnv("i"), fnv("am"), fnv("i'm"), fnv("i’m")}

// introducesSelf reports whether the words before token i are "I am" or "I'm".
func introducesSelf(f *featurizer, i int) bool {
	prev := f.info[i-1].lw
	return prev == selfIntro.im || prev == selfIntro.imCurly ||
		prev == selfIntro.am && i >= 2 && f.info[i-2].lw == selfIntro.i
}

// afterTitles makes the capitalised word after a person title the start of a name when the
// tagger left it out, and the capitalised words right after it (one space apart) part of it,
// also when the tagger began a second name there ("I am Maria" + "Rossi").
// After "I am" or "I'm" it does the same for a known given name, and also completes a name the
// tagger started there but cut short ("I'm Jane Doe" tagged as just "Jane").
func afterTitles(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		ti := &f.info[i]
		title := personTitles[f.info[i-1].lw] && !f.off["after-title"]
		self := !title && ti.gaz&Given != 0 && labels[i] != I && introducesSelf(f, i) && !f.off["after-i-am"]
		if title && labels[i] == O {
			if k := particlesBefore(f, i); k > i {
				// "de heer van Zuylen", "Mgr de Mérode": the particles, the capitalised word
				// after them and the capitalised words that follow it.
				labels[i] = B
				for j := i + 1; j <= k; j++ {
					labels[j] = I
				}
				i = k
				extendName(f, labels, i)
				continue
			}
		}
		if !title && !self || title && labels[i] != O || ti.kind != Word || ti.log ||
			(ti.caps != capInit && ti.caps != capAll && ti.caps != capCamel) || ti.gap&^GapSent != 0 ||
			f.class(i)&(ClsFunction|ClsMonth|ClsWeekday|ClsTitle|ClsPlace|ClsOrg|ClsRole) != 0 || personTitles[ti.lw] {
			continue
		}
		labels[i] = B
		extendName(f, labels, i)
	}
}

// particlesBefore returns the index of the capitalised word that one to three lower-case
// particles starting at token i lead to ("van der Maesen", "de Mérode"), or i when there is none.
func particlesBefore(f *featurizer, i int) int {
	for k := i; k < len(f.info) && k < i+4; k++ {
		tk := &f.info[k]
		if tk.kind != Word || tk.log || tk.gap&^GapSent != 0 && k == i || k > i && tk.gap != 0 {
			return i
		}
		if tk.caps == capLower {
			if f.class(k)&ClsParticle == 0 {
				return i
			}
			continue
		}
		if k == i || tk.caps != capInit && tk.caps != capAll && tk.caps != capCamel ||
			f.class(k)&(ClsFunction|ClsMonth|ClsWeekday|ClsTitle|ClsPlace|ClsOrg|ClsRole) != 0 {
			return i
		}
		return k
	}
	return i
}

// extendName makes the capitalised words right after token i (one space apart, at most two)
// part of the name token i is in.
func extendName(f *featurizer, labels []uint8, i int) {
	for j := i + 1; j < len(labels) && j < i+3; j++ {
		tj := &f.info[j]
		if labels[j] == I || tj.kind != Word || tj.gap != 0 || tj.caps != capInit || f.class(j) != 0 {
			break
		}
		labels[j] = I
	}
}

// best returns the label with the highest score that may follow y1 (I only after B or I).
func best[T int32 | float64](score []T, y1 int) int {
	y := O
	if score[B] > score[y] {
		y = B
	}
	if y1 != O && score[I] > score[y] {
		y = I
	}
	return y
}

// Spans turns the labels of toks into name spans. A name is a B token and the I tokens after
// it, cut where the text between two of its words is more than a space, a hyphen, or the
// period after an initial ("John F. Kennedy"). A trailing possessive 's is left out.
func Spans(text string, toks []Token, labels []uint8) []Span {
	var out []Span
	open := false
	for i, t := range toks {
		l := labels[i]
		if l == I && open && joins(text, toks, i) {
			out[len(out)-1].End = int(t.End)
			continue
		}
		if l == O {
			open = false
			continue
		}
		out = append(out, Span{Start: int(t.Start), End: int(t.End)})
		open = true
	}
	for i, s := range out {
		v := text[s.Start:s.End]
		for _, suf := range []string{"'s", "’s"} {
			if len(v) > len(suf)+1 && v[len(v)-len(suf):] == suf {
				out[i].End -= len(suf)
			}
		}
	}
	return out
}

// joins reports whether token i continues the name that token i-1 is in.
func joins(text string, toks []Token, i int) bool {
	g := toks[i].Gap
	switch {
	case g == 0, g == GapDash:
		return true
	case g == GapSent:
		// Only the period of an initial or a short abbreviation: "J. Smith", "Ma. Cruz".
		prev := toks[i-1]
		between := text[prev.End:toks[i].Start]
		return len(between) <= 2 && between[0] == '.' && prev.End-prev.Start <= 3
	}
	return false
}

// RuleNames are the rules after the tagger, in the order they run; Model.WithoutRules switches
// them off by these names.
var RuleNames = []string{
	"after-title", "after-i-am", "join-adjacent", "extend-left", "known-pairs", "lone-given",
	"fill-lists", "cut-run-on", "cut-after-possessive", "trim-role", "drop-pronoun-i",
	"trim-lower-tail", "trim-common-tail", "drop-hollow",
	"work-modifier", "give-verb", "ex-prefix", "people-noun-list", "speakers", "greeted",
	"initials", "title-lists", "civil-register", "genitives", "polish-cases", "after-office",
	"town-before-region", "street", "honorific", "title-tail", "ship", "building", "event",
	"corner", "place-name", "region-of-town", "city", "brand-model", "after-place",
	"lone-lower-surname", "after-possessive", "ordinary-words", "everyday-words",
	"german-possessive", "role-label", "car-assistant", "adverb", "family-word", "festive",
	"known-phrase", "common-capital", "short-caps", "eponym", "kind-noun", "firm", "firm-lists",
	"taken-back-everywhere",
}
