package names

import "strings"

// A rule corrects the tagger's labels after it, where the evidence stands further away than its
// features look or is rare in its training data. The rules run in the order of the table.
//
// Each rule's worth is what switching it off changes on the development sets (go run
// ./scripts/eval/pii -dev DIRS -ablate; the development F1 is the mean of the eight figures that
// command prints, over two ensembles trained with seeds 1 and 11). Of 57 rules these two
// stayed: the smallest set whose development F1 is within the spread between the two seeds'
// ensembles (0.0034) of the best set's. Each alone is worth less than that spread; together
// they are worth 0.0036. See MODEL.md, "Rules after the tagger".
type rule struct {
	name  string // what go run ./scripts/eval/pii -without takes
	does  string
	worth string // measured: the development figures with the rule minus without it
	apply func(f *featurizer, labels []uint8)
}

// rules are the rules after the tagger, in the order they run.
var rules = []rule{
	{
		name: "initials",
		does: `initials, particles and a capitalised word are a name ("A. van Pelt", "F. J. Pompe"), and
			initials join a surname the tagger found ("A. Somers")`,
		worth: "development F1 +0.0018 (GermEval +0.008, Europeana nl +0.005, fr +0.003; de -0.001)",
		apply: markInitials,
	},
	{
		name: "after-office",
		does: `one capitalised word after an office or rank (lists/offices.txt, also at the end of a
			compound) is a name: "minister Thorbecke", "Außenminister Stresemann", "dem Aufseher
			Reinicke", "generaal de Chazal"`,
		worth: "development F1 +0.0018 (Europeana nl +0.011, de +0.004, fr +0.003; GermEval -0.003)",
		apply: afterOffices,
	},
}

// RuleNames are the names of the rules after the tagger, in the order they run.
var RuleNames = func() []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.name
	}
	return out
}()

// applyRules runs the rules that are not switched off.
func applyRules(f *featurizer, labels []uint8) {
	for _, r := range rules {
		if !f.off[r.name] {
			r.apply(f, labels)
		}
	}
}

// Lists the rules read.
var (
	offices         = listSet("offices")
	officeParticles = listSet("office-particles")
	germanArticles  = listSet("german-articles")
	maxOffice       = func() int {
		n := 0
		for _, w := range listWords("offices") {
			n = max(n, len(w))
		}
		return n
	}()
	hashDes = fnv("des")
)

// markInitials makes a name of one or more initials, lower-case particles and a capitalised word
// ("A. van Pelt", "J. W. ten Brink"), and of two or more initials and a capitalised word that is
// no common word ("F. J. Pompe"; when the initials are written without spaces, as in "U.S.
// Olympic", only a word the gazetteer knows as a surname: "A.W. Maas"), when the tagger left it
// out. One initial before a surname is left to the tagger: it is as often a saint or an exchange
// ("S. Candido", "T. Nord"), and a heading ("A. Introduction") is neither. When the tagger found
// the surname but not the initials before it ("A. Somers"), they join it.
func markInitials(f *featurizer, labels []uint8) {
	for i := 0; i < len(labels); i++ {
		if !f.initial(i) || labels[i] != O || i > 0 && f.initial(i-1) {
			continue
		}
		k := i
		for k+1 < len(labels) && k < i+4 && f.initial(k+1) && f.info[k+1].gap&^GapSent == 0 {
			k++
		}
		p := k + 1
		for p < len(labels) && p < k+4 && f.isWord(p) && f.info[p].caps == capLower && f.class(p)&ClsParticle != 0 && labels[p] == O {
			p++
		}
		if p >= len(labels) || f.info[p].gap&^GapSent != 0 || !f.isWord(p) || labels[p] == I || f.germanGenitiveAfter(k, p) {
			continue
		}
		if labels[p] == B {
			if k == i && f.text[f.toks[i].Start] == 'M' || f.capital(i-1) && f.info[i].gap == 0 {
				// "M. Dupont": Monsieur, not an initial. "Faina D. Yefremova": a middle
				// initial.
				continue
			}
			// The tagger found the surname but not its initials ("A. Somers"): they are part
			// of it.
			labels[i] = B
			for n := i + 1; n <= p; n++ {
				labels[n] = I
			}
			i = p
			continue
		}
		tp := &f.info[p]
		if tp.caps != capInit && tp.caps != capAll || tp.runes < 2 {
			continue
		}
		// After particles, a role word or a function word with a capital is a surname too ("A.
		// van Son", where "son" is French for "his"); without them it must be no lexicon word at
		// all.
		if c := f.class(p); p > k+1 && c&(ClsMonth|ClsWeekday|ClsPlace|ClsOrg) != 0 ||
			p > k+1 && c&ClsFunction != 0 && tp.caps != capInit ||
			p == k+1 && c != 0 && c != ClsParticle {
			continue
		}
		if p == k+1 && (tp.gaz&Common != 0 || k == i || tp.gaz&Surname == 0 && !f.spacedInitials(i, k)) {
			continue
		}
		labels[i] = B
		for n := i + 1; n <= p; n++ {
			labels[n] = I
		}
		i = p
	}
}

// spacedInitials reports whether each of the initials i to k is followed by a period and a
// space: "F. J. Pompe", not the abbreviation in "U.S. Olympic" or "N.V. Philips".
func (f *featurizer) spacedInitials(i, k int) bool {
	for n := i; n <= k; n++ {
		end := int(f.toks[n].End) + 1
		if end >= len(f.text) || f.text[end] != ' ' && f.text[end] != '\n' {
			return false
		}
	}
	return true
}

// initial reports whether token i is one capital letter followed by a period.
func (f *featurizer) initial(i int) bool {
	if i < 0 || i >= len(f.info) || f.info[i].kind != Word || f.info[i].runes != 1 || f.info[i].caps == capLower {
		return false
	}
	t := f.toks[i]
	return int(t.End) < len(f.text) && f.text[t.End] == '.'
}

// germanGenitiveAfter reports whether the words from k+1 to p are the German article "des" and a
// noun in -s the name lists do not know: "K. des Buchbindermeisters" (a boy of the bookbinder's,
// in a register of births) names no one.
func (f *featurizer) germanGenitiveAfter(k, p int) bool {
	if p != k+2 || f.info[k+1].lw != hashDes || f.info[p].gaz != 0 {
		return false
	}
	t := f.toks[p]
	return strings.HasSuffix(f.text[t.Start:t.End], "s")
}

// afterOffices makes one capitalised word after an office a name ("minister Thorbecke",
// "Außenminister Stresemann"); particles are not followed ("minister van Financiën" names a
// ministry), except one "de" or "von" before a surname ("generaal de Chazal", "Minister von
// Papen"; "de la Guerre" has two).
func afterOffices(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		if labels[i] != O || f.info[i].gap != 0 {
			continue
		}
		if f.nameLike(i) || f.givenPlace(i) {
			if f.office(i - 1) {
				labels[i] = B
			}
			continue
		}
		if officeParticles[f.info[i].lw] && f.info[i].caps == capLower && i+1 < len(labels) &&
			labels[i+1] == O && f.info[i+1].gap == 0 && f.nameLike(i+1) && f.office(i-1) {
			labels[i], labels[i+1] = B, I
		}
	}
}

// nameLike reports whether token i may be made a name by these rules: a word written with an
// initial capital that is no common word, title, place, organisation or other lexicon word.
func (f *featurizer) nameLike(i int) bool {
	if !f.isWord(i) {
		return false
	}
	ti := &f.info[i]
	return ti.caps == capInit && !ti.log && ti.gaz&Common == 0 && f.class(i) == 0
}

// givenPlace reports whether token i is a place the lexicon knows that is also a given name, with
// an initial capital: after an office or a rank it is the name ("prinses Charlotte", "koningin
// Victoria").
func (f *featurizer) givenPlace(i int) bool {
	ti := &f.info[i]
	return f.isWord(i) && ti.caps == capInit && !ti.log && ti.gaz&Given != 0 && f.class(i) == ClsPlace
}

// office reports whether token i is an office or rank that makes the capitalised word after it a
// name: written in lower case ("minister Thorbecke", "prinses Charlotte"), or a capitalised
// compound longer than its stem ("Außenminister Stresemann"), or a capitalised office after a
// German article ("dem Aufseher Reinicke"). A capitalised office alone ("General Motors", "Major
// League") is left to the tagger.
func (f *featurizer) office(i int) bool {
	j := f.officeAt(i)
	switch {
	case j < 0:
		return false
	case f.info[i].caps == capLower:
		return true
	}
	return j > 0 || i > 0 && f.info[i].gap == 0 && germanArticles[f.info[i-1].lw]
}

// officeAt returns the byte offset at which an office of lists/offices.txt ends token i, a word
// written in lower case or with an initial capital, or -1.
func (f *featurizer) officeAt(i int) int {
	if !f.isWord(i) || f.info[i].caps != capLower && f.info[i].caps != capInit {
		return -1
	}
	t := f.toks[i]
	f.lower = appendLower(f.lower[:0], f.text[t.Start:t.End])
	w := f.lower
	for j := len(w) - 1; j >= 0 && len(w)-j <= maxOffice; j-- {
		if offices[fnvBytes(w[j:])] {
			return j
		}
	}
	return -1
}

// isWord reports whether token i is a word.
func (f *featurizer) isWord(i int) bool { return i >= 0 && i < len(f.info) && f.info[i].kind == Word }

// capital reports whether token i is a word written with a capital.
func (f *featurizer) capital(i int) bool { return f.isWord(i) && f.info[i].caps != capLower }
