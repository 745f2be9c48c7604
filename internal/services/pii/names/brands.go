package names

import "strings"

// brandList holds names of people that name a brand, a bank or a firm far more often than a
// person in the texts the service reads (orders, support requests): "a Calvin Klein jacket",
// "my Charles Schwab account", "Ben & Jerry's". Brands that are also common names of ordinary
// people ("Paul Smith", "John Lewis", "Ted Baker"; "Johnson and Johnson" is two people) are
// left out: missing a person costs more than redacting a brand. One brand per line, in lower
// case, the words as the tokenizer sees them ("&" is no word; "and" is).
const brandList = `calvin klein
louis vuitton
ralph lauren
tommy hilfiger
hugo boss
marc jacobs
tom tailor
carolina herrera
yves saint laurent
salvatore ferragamo
giorgio armani
emporio armani
christian dior
coco chanel
michael kors
kate spade
tory burch
vera wang
stella mccartney
jimmy choo
christian louboutin
karl lagerfeld
jean paul gaultier
roberto cavalli
emilio pucci
tommy bahama
levi strauss
oscar de la renta
diane von furstenberg
dr martens
jack wolfskin
betty barclay
gerry weber
bruno banani
fred perry
alexander mcqueen
vivienne westwood
dolce gabbana
dolce e gabbana
max mara
jil sander
estée lauder
estee lauder
elizabeth arden
helena rubinstein
max factor
charlotte tilbury
charles schwab
morgan stanley
goldman sachs
merrill lynch
lehman brothers
dow jones
wells fargo
johnson johnson
procter gamble
procter and gamble
marks spencer
marks and spencer
ben jerry's
ben and jerry's
walt disney
harley davidson
aston martin
rolls royce
mercedes benz
john deere
dr oetker
tim hortons
jack daniel's
johnnie walker
captain morgan
jose cuervo
holland barrett`

// maxPhraseWords is the most words a phrase of brandList or placeList has.
const maxPhraseWords = 4

// phraseSet hashes every line of list, a phrase of words, as spanHash hashes its tokens.
func phraseSet(list string) map[uint64]bool {
	set := map[uint64]bool{}
	for _, line := range strings.Split(list, "\n") {
		words := strings.Fields(line)
		h := uint64(len(words))
		for _, w := range words {
			h = mix(h, fnv(w))
		}
		set[h] = true
	}
	return set
}

// knownPhrases holds the brands of brandList and the places of placeList.
var knownPhrases = phraseSet(brandList + "\n" + placeList)

// inKnownPhrase reports whether the name tokens i to j-1 overlap, on one line, a brand of
// brandList or a place of placeList: "a [Calvin Klein] jacket", "Carolina [Herrera]", "Ben &
// [Jerry]'s", "my [Charles Schwab card]", "Puerto [Rico]".
func (f *featurizer) inKnownPhrase(i, j int) bool {
	for s := max(0, i-maxPhraseWords+1); s < j; s++ {
		for e := max(s+2, i+1); e <= len(f.info) && e-s <= maxPhraseWords; e++ {
			if f.sameLine(s, e) && knownPhrases[f.spanHash(s, e)] {
				return true
			}
		}
	}
	return false
}

// sameLine reports whether tokens s to e-1 are words on one line, joined by spaces or by the
// punctuation brands are written with ("&", "-", ".", "'").
func (f *featurizer) sameLine(s, e int) bool {
	for k := s; k < e; k++ {
		if !f.isWord(k) || k > s && f.info[k].gap&^(GapOther|GapDash|GapSent) != 0 {
			return false
		}
	}
	return true
}
