package names

import "strings"

// Dutch and German build adverbs from a pointing word and a preposition ("hierdoor", "daarmee",
// "waarom"; "hierbei", "dadurch", "darauf", "womit"), and write them with a capital when they
// open a sentence. The tagger, which has no such word in its lexicon, sometimes takes one there
// for a surname. They are kept out of the lexicon the tagger's features read (see
// TestLexiconMatchesTrainedModel).
var (
	dutchPointers      = []string{"hier", "daar", "waar", "er"}
	dutchPrepositions  = hashSet(`aan achter bij binnen boven buiten door heen in langs mee na naar naast om onder op over tegen toe tussen uit van vandaan voor zonder af`)
	germanPointers     = []string{"hier", "da", "wo"}
	germanPrepositions = hashSet(`an auf aus bei durch für gegen hinter in mit nach neben über um unter von vor zu zwischen`)
	sentenceAdverbs    = hashSet(`kortom vanaf thuis uiteindelijk desondanks zudem danach ebenfalls sodann`)
)

// adverb reports whether token i is one of sentenceAdverbs or a Dutch or German pointing word
// joined to a preposition (German puts an "r" between a pointing word and a preposition that
// starts with a vowel: "darauf", "woran").
func (f *featurizer) adverb(i int) bool {
	if !f.isWord(i) {
		return false
	}
	if sentenceAdverbs[f.info[i].lw] {
		return true
	}
	t := f.toks[i]
	w := Lower(f.text[t.Start:t.End])
	for _, p := range dutchPointers {
		if rest, ok := strings.CutPrefix(w, p); ok && dutchPrepositions[fnv(rest)] {
			return true
		}
	}
	for _, p := range germanPointers {
		rest, ok := strings.CutPrefix(w, p)
		if !ok {
			continue
		}
		if r, found := strings.CutPrefix(rest, "r"); found && r != "" && strings.IndexByte("aeiouäöü", r[0]) >= 0 {
			rest = r
		} else if rest != "" && strings.IndexByte("aeiou", rest[0]) >= 0 {
			continue // "daan" is no German adverb
		}
		if germanPrepositions[fnv(rest)] {
			return true
		}
	}
	return false
}
