package names

import "strings"

// This file holds the rules that add names the tagger missed where the words around them leave
// no doubt that they name people: "Unlike the Jensen novel", "Kevin had given Alma his
// address", "ex-Beatle McCartney", "our 3 founders: Gerste, Johnson and Pratt", the speakers of
// a dialogue, initials before particles ("A. van Pelt") and surnames after offices ("minister
// Thorbecke"). Each rule looks at a few tokens around each word, so together they stay linear in
// the text.

// workNouns follow an author's or a family's name used as a modifier: "the Jensen novel", "the
// Johnson administration", "the Ford family".
var workNouns = hashSet(`novel novels biography memoir memoirs poem poems trilogy saga
	administration family household twins murders`)

// workDeterminers stand before such a modifier.
var workDeterminers = hashSet(`the a an his her their this that`)

// giveVerbs take a person as their first object: "had given Alma his address".
var giveVerbs = hashSet(`give gives gave given giving send sends sent tell tells told show shows
	showed shown ask asks asked offer offers offered lend lends lent hand hands handed owe owes owed
	pay pays paid email emails emailed text texts texted buy buys bought`)

// possessives follow the first object of giveVerbs when that object is a person.
var possessives = hashSet(`his her their my your our`)

// peopleNouns, before a colon, introduce a list of people: "our 3 founders: Gerste, Johnson and
// Pratt".
var peopleNouns = hashSet(`founders co-founders cofounders partners authors members children kids
	sons daughters speakers winners owners employees guests players friends parents siblings
	grandchildren colleagues candidates participants directors teachers students attendees
	panelists panellists nominees finalists judges editors organisers organizers hosts
	gründer mitglieder kinder söhne töchter gäste spieler autoren teilnehmer kollegen eltern
	fondateurs membres enfants fils filles invités joueurs auteurs participants collègues parents
	fundadores miembros hijos hijas invitados jugadores autores participantes colegas padres
	fondatori membri figli figlie ospiti giocatori autori partecipanti colleghi genitori
	oprichters leden kinderen zonen dochters gasten spelers auteurs deelnemers collega's ouders
	membros filhos filhas convidados jogadores`)

// addPeople applies the rules of this file to the tagger's labels.
func addPeople(f *featurizer, labels []uint8) {
	for i := 1; i < len(labels); i++ {
		if f.info[i].caps != capInit && labels[i] == O {
			// Every rule below starts at a capitalised word or a name.
			continue
		}
		switch {
		case workDeterminers[f.info[i-1].lw] && !f.off["work-modifier"]:
			f.markBefore(labels, i, workNouns)
		case giveVerbs[f.info[i-1].lw] && !f.off["give-verb"]:
			f.markBefore(labels, i, possessives)
		case f.exPrefix(i-1) && !f.off["ex-prefix"]:
			// "ex-Zombie Ryhänen": the band is no part of the name.
			if labels[i] == I {
				labels[i] = B
			}
			if labels[i] == B || f.markBefore(labels, i, nil) {
				labels[i-1] = O
			}
		case peopleNouns[f.info[i-1].lw] && f.info[i].gap&GapColon != 0 && !f.off["people-noun-list"]:
			f.markList(labels, i)
		}
	}
	for _, r := range []struct {
		name string
		mark func([]uint8)
	}{
		{"speakers", f.markSpeakers}, {"greeted", f.markGreeted}, {"initials", f.markInitials},
		{"title-lists", f.markTitleLists}, {"civil-register", f.markCivil}, {"genitives", f.markGenitives},
		{"polish-cases", f.markPolishCases},
	} {
		if !f.off[r.name] {
			r.mark(labels)
		}
	}
	// "minister Thorbecke", "Außenminister Stresemann": one capitalised word after an office.
	// Particles are not followed ("minister van Financiën" names a ministry).
	for i := 1; i < len(labels) && !f.off["after-office"]; i++ {
		if labels[i] != O || f.info[i].gap != 0 {
			continue
		}
		if f.nameLike(i) || f.givenPlace(i) {
			if f.roleTitle(i - 1) {
				labels[i] = B
			}
			continue
		}
		// One particle "de" or "von" before the surname ("generaal de Chazal", "Minister von
		// Papen"); "de la Guerre" has two.
		if roleParticles[f.info[i].lw] && f.info[i].caps == capLower && i+1 < len(labels) &&
			labels[i+1] == O && f.info[i+1].gap == 0 && f.nameLike(i+1) && f.roleTitle(i-1) {
			labels[i], labels[i+1] = B, I
		}
	}
}

// pluralTitles address several people at once, and the names after them are a list: "de heeren
// Thorbecke en Olivier", "die Herren Müller, Schulze und Lehmann", "messieurs Dupont et Durand".
// The Spanish, Portuguese and Italian plurals are left out: in court and parliament reports an
// office follows them ("os Senhores Desembargadores"), and "MM." is also the Portuguese
// "Meritíssimo".
var pluralTitles = hashSet(`heeren herren messieurs`)

// markTitleLists makes names of the items of the list after each plural title, after at most two
// offices ("die Herren Kapellmeister Sitt und Slansky"). An item is a capitalised word after
// optional initials and particles, with the capitalised words and particles that follow it one
// space apart ("Fransen van de Putte"); the items are separated by commas or "and" and its
// equivalents. At most maxTitleList items are taken, each of a few tokens, so the rule stays
// linear.
func (f *featurizer) markTitleLists(labels []uint8) {
	for t := 0; t+1 < len(labels); t++ {
		if !pluralTitles[f.info[t].lw] || f.info[t].kind != Word {
			continue
		}
		first := t + 1
		for first < len(labels) && first < t+3 && f.info[first].gap == 0 && (f.roleStemAt(first) >= 0 || f.class(first)&ClsRole != 0) {
			first++
		}
		if first >= len(labels) || f.info[first].gap != 0 {
			continue
		}
		for k, n := first, 0; n < maxTitleList; n++ {
			end := f.titleListItem(k)
			if end < 0 {
				break
			}
			labels[k] = B
			for m := k + 1; m < end; m++ {
				labels[m] = I
			}
			switch {
			case end >= len(labels):
				return
			case f.info[end].gap == GapComma:
				k = end
			case f.info[end].gap == 0 && listAnd[f.info[end].lw] && end+1 < len(labels) && f.info[end+1].gap == 0:
				k = end + 1
			default:
				n = maxTitleList
			}
		}
	}
}

// maxTitleList is the largest number of names taken after one plural title.
const maxTitleList = 12

// titleListItem returns the token after the list item that starts at token k, or -1 when no
// item starts there (see markTitleLists).
func (f *featurizer) titleListItem(k int) int {
	p := k
	for p < len(f.info) && p < k+3 && f.initial(p) && (p == k || f.info[p].gap&^GapSent == 0) {
		p++
	}
	for p < len(f.info) && p < k+6 && f.isWord(p) && f.info[p].caps == capLower && f.class(p)&ClsParticle != 0 &&
		(p == k || f.info[p].gap&^GapSent == 0) {
		p++
	}
	if p >= len(f.info) || p > k && f.info[p].gap&^GapSent != 0 || !f.surnameLike(p) {
		return -1
	}
	end := p + 1
	for end < len(f.info) && end < p+5 && f.info[end].gap == 0 && f.isWord(end) &&
		(f.surnameLike(end) || f.info[end].caps == capLower && f.class(end)&ClsParticle != 0) {
		end++
	}
	for end > p+1 && f.info[end-1].caps == capLower {
		end-- // "van de Putte en": particles never end the item
	}
	return end
}

// surnameLike reports whether token i is a word written with a capital that is no function word,
// month, weekday, title, place, organisation or office.
func (f *featurizer) surnameLike(i int) bool {
	if !f.isWord(i) {
		return false
	}
	ti := &f.info[i]
	return (ti.caps == capInit || ti.caps == capAll) && !ti.log && ti.runes >= 2 &&
		f.class(i)&(ClsFunction|ClsMonth|ClsWeekday|ClsTitle|ClsPlace|ClsOrg|ClsRole) == 0
}

// roleParticles may stand between an office and a surname.
var roleParticles = hashSet(`de von`)

// roleStems are offices and ranks that stand before a surname in newspaper prose ("minister
// Thorbecke", "generaal Chazal", "Außenminister Stresemann", "Oberlandjäger Köster"), and the
// cabinets named after their heads ("het kabinet Rutte", "das Kabinett Scholz", "il governo
// Meloni"). German and Dutch build compounds on them ("Reichsaußenminister",
// "oud-burgemeester"), so a word counts when it ends in one.
var roleStems = hashSet(`minister präsident president kanzler direktor directeur kommissär
	kommissar sekretär secretaris inspektor inspecteur professor pfarrer pastoor predikant
	bürgermeister burgemeester wethouder general generaal général oberst kolonel colonel leutnant
	luitenant lieutenant hauptmann kapitän kapitein capitaine major majoor senator konsul consul
	gesandte gesandten botschafter gezant ambassadeur abgeordnete abgeordneten afgevaardigde
	député repräsentant repräsentanten gouverneur bischof bisschop évêque kardinal kardinaal
	cardinal redakteur redacteur komponist componist dichter maler schilder notaris notaire
	advokaat avocat dokter docteur ministre maréchal maarschalk feldmarschall admiral admiraal
	amiral kaiser keizer empereur kaiserin keizerin impératrice könig koning roi königin koningin
	reine prinz prins prinzessin prinses princesse herzog hertog graf graaf gräfin gravin comte
	comtesse baron baronin barones baronne jäger aufseher kaufmann kaufmannes koopman négociant
	kabinet kabinett cabinet ministerie gouvernement governo gobierno regering regierung`)

// maxRoleStem is the length in bytes of the longest of roleStems.
const maxRoleStem = len("repräsentanten")

// roleTitle reports whether token i is an office or rank that makes the capitalised word after
// it a name: written in lower case ("minister Thorbecke", "prinses Charlotte"), or a capitalised
// compound longer than its stem ("Außenminister Stresemann"), or a capitalised office after a
// German article ("dem Aufseher Reinicke"). A capitalised office alone ("General Motors", "Major
// League") is left to the tagger.
func (f *featurizer) roleTitle(i int) bool {
	j := f.roleStemAt(i)
	switch {
	case j < 0:
		return false
	case f.info[i].caps == capLower:
		return true
	}
	return j > 0 || i > 0 && f.info[i].gap == 0 && germanArticles[f.info[i-1].lw]
}

// roleStemAt returns the byte offset at which one of roleStems ends token i, a word written in
// lower case or with an initial capital, or -1.
func (f *featurizer) roleStemAt(i int) int {
	if !f.isWord(i) || f.info[i].caps != capLower && f.info[i].caps != capInit {
		return -1
	}
	t := f.toks[i]
	f.lower = appendLower(f.lower[:0], f.text[t.Start:t.End])
	w := f.lower
	for j := len(w) - 1; j >= 0 && len(w)-j <= maxRoleStem; j-- {
		if roleStems[fnvBytes(w[j:])] {
			return j
		}
	}
	return -1
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

var hashDes = fnv("des")

// germanArticles before a capitalised office make it one ("dem Aufseher Reinicke", "den Kaufmann
// Hayn"); English has no such article before "General Motors".
var germanArticles = hashSet(`der die das den dem des vom zum zur beim ein einen einem eines`)

// markInitials makes a name of one or more initials, lower-case particles and a capitalised word
// ("A. van Pelt", "J. W. ten Brink"), and of two or more initials and a capitalised word that is
// no common word ("F. J. Pompe"; when the initials are written without spaces, as in "U.S.
// Olympic", only a word the gazetteer knows as a surname: "A.W. Maas"), when the tagger left it
// out. One initial before a surname is left to the tagger: it is as often a saint or an exchange
// ("S. Candido", "T. Nord"), and a heading ("A. Introduction") is neither. When the tagger found
// the surname but not the initials before it ("A. Somers"), they join it.
func (f *featurizer) markInitials(labels []uint8) {
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
				// initial; the tagger's "Yefremova" also finds her "Yefremova" later on.
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

// markBefore makes the one or two name-like words from token i on a name when the word after
// them (one space apart) is in next, or, when next is nil, whatever follows. It reports whether
// it found such words.
func (f *featurizer) markBefore(labels []uint8, i int, next map[uint64]bool) bool {
	if !f.nameLike(i) || f.info[i].gap != 0 && f.info[i].gap != GapQuote {
		return false
	}
	j := i + 1
	if f.nameLike(j) && f.info[j].gap == 0 {
		j++
	}
	if next != nil && (!f.isWord(j) || f.info[j].gap != 0 || !next[f.info[j].lw]) {
		return false
	}
	if labels[i] == I {
		return false
	}
	labels[i] = B
	for k := i + 1; k < j; k++ {
		labels[k] = I
	}
	return true
}

// exPrefix reports whether token i is a word like "ex-Beatle": "ex-" and a capital.
func (f *featurizer) exPrefix(i int) bool {
	if !f.isWord(i) {
		return false
	}
	t := f.toks[i]
	w := f.text[t.Start:t.End]
	if len(w) < 4 || !strings.EqualFold(w[:3], "ex-") {
		return false
	}
	return w[3] >= 'A' && w[3] <= 'Z'
}

// markList makes the one-word items of the list that starts at token i names.
func (f *featurizer) markList(labels []uint8, i int) {
	for k, n := i, 0; k >= 0 && n < 16; k, n = f.listItem(labels, k, +1), n+1 {
		switch {
		case !f.nameLike(k):
			if labels[k] == O {
				// The list ends at a word that is neither name-like nor tagged.
				return
			}
		case k+1 < len(labels) && f.nameLike(k+1) && f.info[k+1].gap == 0:
			// A two-word item is left to the tagger.
		case labels[k] == O:
			labels[k] = B
		}
	}
}

// markSpeakers makes the speakers of a dialogue names: when two or more lines begin with one
// capitalised word and a colon ("Ella: What a wife.") and the tagger found at least one of those
// words to be a name, the others are names too. Words such as "User", "Note" or "Subject" are
// lexicon or common words and stay out.
func (f *featurizer) markSpeakers(labels []uint8) {
	var speakers []int
	named := false
	for i := range labels {
		ti := &f.info[i]
		if ti.gap&(GapNewline|GapStart) == 0 || !f.isWord(i) || i+1 >= len(labels) ||
			f.info[i+1].gap&GapColon == 0 || f.info[i+1].gap&GapNewline != 0 {
			continue
		}
		speakers = append(speakers, i)
		named = named || labels[i] == B && labels[i+1] != I
	}
	if !named || len(speakers) < 2 {
		return
	}
	for _, i := range speakers {
		if labels[i] == O && f.nameLike(i) {
			labels[i] = B
		}
	}
}

// thanksWords open a line that thanks someone by name, as greetings open one that addresses
// someone: "Thanks Will, that helps".
var thanksWords = hashSet(`thanks thank thx merci danke grazie gracias obrigado obrigada bedankt dank
	dziękuję dziekuje`)

// dayParts follow "good" in an English greeting: "Good morning Mark,".
var dayParts = hashSet(`morning afternoon evening`)

// maxGreeted is the largest number of words taken as the name after a greeting.
const maxGreeted = 3

// markGreeted makes a name of the capitalised words after a greeting or thanks that opens a line
// or sentence, when a comma, sentence punctuation or a line break follows them: "Hi Mark, the
// invoice is attached", "Dear Grace,\n", "Good morning Mark,". The words must be no lexicon words
// ("Hi Team,", "Dear Sir,", "Hello World!") and either a given name the gazetteer knows or no
// common word ("Hi All,"). The tagger leaves out given names that are also common words (Mark,
// Will, Grace) even there.
func (f *featurizer) markGreeted(labels []uint8) {
	for g := 0; g+1 < len(labels); g++ {
		if !f.isWord(g) || !f.greeting(g) {
			continue
		}
		i := g + 1
		j := i
		for j < len(labels) && j-i < maxGreeted && f.info[j].gap == 0 && f.greetedWord(j, j == i) {
			j++
		}
		if j == i || j < len(labels) && f.info[j].gap&(GapComma|GapSent|GapNewline|GapBlank) == 0 {
			continue
		}
		if labels[i] == I {
			continue
		}
		labels[i] = B
		for k := i + 1; k < j; k++ {
			labels[k] = I
		}
		g = j - 1
	}
}

// greeting reports whether token g is a greeting or thanks that opens a line or a sentence ("Hi",
// "Dear", "Thanks"), or the part of the day after "Good" that does.
func (f *featurizer) greeting(g int) bool {
	const opens = GapStart | GapNewline | GapBlank | GapSent
	ti := &f.info[g]
	if ti.gap&opens != 0 {
		return f.class(g)&ClsGreeting != 0 || thanksWords[ti.lw]
	}
	// Most words open nothing: the position is looked at before the lists.
	return g > 0 && ti.gap == 0 && f.info[g-1].gap&opens != 0 && f.info[g-1].lw == fnv("good") && dayParts[ti.lw]
}

// greetedWord reports whether token k may be a word of the name after a greeting: written with an
// initial capital, no lexicon word (but a function word that is also a given name), and a given name the gazetteer knows (the first word) or a
// name or no common word (the others).
func (f *featurizer) greetedWord(k int, first bool) bool {
	tk := &f.info[k]
	if !f.isWord(k) || tk.caps != capInit || tk.log || tk.runes < 2 {
		return false
	}
	if c := f.class(k); c != 0 {
		// "Hello Will,": a function word only when it is also a given name.
		return first && c == ClsFunction && tk.gaz&Given != 0
	}
	if first {
		return tk.gaz&Given != 0 || tk.gaz&Common == 0
	}
	return tk.gaz&(Given|Surname) != 0 || tk.gaz&Common == 0
}

// genitiveNotNames are stems the gazetteer knows as names whose genitive names something else:
// a continent ("die Zukunft Europas") or a news agency ("der Bericht Reuters").
var genitiveNotNames = hashSet(`europa afrika amerika asia reuter`)

// headNoun reports whether token i can be the noun a genitive name follows: a capitalised word
// inside a sentence ("Three Falcons" opens one) that is no article ("Eines Tages"), no name or
// lexicon word ("the Bowling Green Falcons", "Atlanta Falcons") and has no adjective ending
// ("des Geheimen Raths").
func (f *featurizer) headNoun(i int) bool {
	if !f.isWord(i) || f.info[i].caps != capInit || f.class(i) != 0 || f.info[i].gaz&(Given|Surname) != 0 ||
		f.info[i].gap&(GapStart|GapSent|GapBlank) != 0 || germanArticles[f.info[i].lw] {
		return false
	}
	t := f.toks[i]
	w := f.text[t.Start:t.End]
	for _, end := range []string{"en", "em", "er", "es"} {
		if strings.HasSuffix(w, end) {
			return false
		}
	}
	return true
}

// markGenitives makes a name of a capitalised word the gazetteer does not know that is a known
// surname or given name with a genitive -s, right after the noun it belongs to: "die Mitteilung
// Luthers", "die Zeit Beethovens", "aus dem ersten Buche Mosis" (German writes it without an
// apostrophe). The stem must be no common word ("Bauers", "Winters") and no lexicon word.
func (f *featurizer) markGenitives(labels []uint8) {
	if f.gaz == nil {
		return
	}
	for i := 1; i < len(labels); i++ {
		ti := &f.info[i]
		if labels[i] != O || !f.isWord(i) || ti.caps != capInit || ti.log || ti.gaz != 0 || ti.runes < 5 ||
			ti.gap != 0 || f.class(i) != 0 || labels[i-1] != O || !f.headNoun(i-1) {
			continue
		}
		t := f.toks[i]
		f.lower = appendLower(f.lower[:0], f.text[t.Start:t.End])
		w := f.lower
		if w[len(w)-1] != 's' || w[len(w)-2] == 's' {
			continue
		}
		stem := w[:len(w)-1]
		fl := f.gaz.Flags(string(stem))
		if fl&(Given|Surname) == 0 || fl&Common != 0 || lexicon[string(stem)] != 0 || genitiveNotNames[fnvBytes(stem)] {
			continue
		}
		labels[i] = B
	}
}

// polishEndings are the case endings of Polish given names and surnames, each with the ending of
// the nominative that replaces it: "Krzysztofem" is "Krzysztof", "Kasią" and "Kasię" are
// "Kasia", "Zosi" is "Zosia", "Nowakiem" is "Nowak", "Lewandowskiego" is "Lewandowski",
// "Kowalskiej" is "Kowalska". Longer endings come first.
var polishEndings = [][2]string{
	{"skiego", "ski"}, {"skiemu", "ski"}, {"skim", "ski"}, {"ckiego", "cki"}, {"ckiemu", "cki"},
	{"ckim", "cki"}, {"skiej", "ska"}, {"ckiej", "cka"}, {"kiem", "k"}, {"giem", "g"},
	{"owi", ""}, {"em", ""}, {"ą", "a"}, {"ę", "a"}, {"i", "ia"}, {"a", ""},
}

// polishLetters are the letters only Polish writes among the languages the service reads.
const polishLetters = "ąćęłńśźżĄĆĘŁŃŚŹŻ"

// polishStreets stand before streets and squares named after people, in the genitive: "ul.
// Więckowskiego", "al. Mickiewicza", "plac Piłsudskiego".
var polishStreets = hashSet(`ul ulica ulicy al aleja alei pl plac placu os osiedle rondo ronda most mostu`)

// markPolishCases makes a name of a capitalised word the name lists do not know whose Polish
// nominative they know as a given name or surname and not as a common word: "z Krzysztofem
// Nowakiem", "z Kasią", "dla Zosi". The lists hold names in the nominative only. Only a text
// with a letter only Polish writes is read this way: elsewhere "Ottoman" would be "Ottom".
func (f *featurizer) markPolishCases(labels []uint8) {
	if f.gaz == nil {
		return
	}
	polish := false // the text has a Polish letter; asked of the first word that would be a name
	for i := 0; i < len(labels); i++ {
		ti := &f.info[i]
		if labels[i] != O || !f.isWord(i) || ti.caps != capInit || ti.log || ti.gaz != 0 || ti.runes < 4 || f.class(i) != 0 ||
			i > 0 && polishStreets[f.info[i-1].lw] {
			continue
		}
		t := f.toks[i]
		f.lower = appendLower(f.lower[:0], f.text[t.Start:t.End])
		w := string(f.lower)
		for _, e := range polishEndings {
			base, ok := strings.CutSuffix(w, e[0])
			if !ok || len(base) < 2 {
				continue
			}
			fl := f.gaz.Flags(base + e[1])
			if fl&(Given|Surname) != 0 && fl&Common == 0 && lexicon[base+e[1]] == 0 {
				if !polish {
					// Most texts have no such word and are never read for Polish letters.
					if !strings.ContainsAny(f.text, polishLetters) {
						return
					}
					polish = true
				}
				labels[i] = B
				if i > 0 && labels[i-1] != O && f.info[i].gap == 0 {
					labels[i] = I
				}
			}
			break
		}
	}
}

// civilWords follow a name in the registers of births, marriages and deaths ("J. Pistorius jm.,
// oud 2 j.", "J. Heeren wed. van A. Janssens", "A. W. van Eindhoven huisvr. van …", "W. Geboers
// geb. Beerens"): abbreviations for bachelor, spinster, widow, housewife, spouse and née.
var civilWords = hashSet(`geb jm jd wed wedn wdr huisvr huisv echtg`)

// Hashes of the words for née that join a maiden name to the name before it.
var hashGeb, hashNee = fnv("geb"), fnv("née")

// markCivil makes a name of initials, lower-case particles and a capitalised word that one of
// civilWords follows with its full stop, which the tagger and markInitials leave out when there is
// one initial or the word is a common word or a place ("J. Heeren wed.", "A. W. van Eindhoven
// huisvr."). A maiden name after "geb." or "née" joins the name before it, found here or by the
// tagger: "W. Geboers geb. Beerens", "Anna Müller geb. Schmidt".
func (f *featurizer) markCivil(labels []uint8) {
	n := len(labels)
	for i := 0; i < n; i++ {
		if !f.initial(i) || labels[i] != O || i > 0 && f.initial(i-1) {
			continue
		}
		k := i
		for k+1 < n && k < i+4 && f.initial(k+1) && f.info[k+1].gap&^GapSent == 0 {
			k++
		}
		p := k + 1
		for p < n && p < k+4 && f.isWord(p) && f.info[p].caps == capLower && f.class(p)&ClsParticle != 0 {
			p++
		}
		if p+1 >= n || labels[p] != O || !f.isWord(p) || f.info[p].caps != capInit || f.info[p].runes < 2 ||
			f.info[p].gap&^GapSent != 0 || !f.civilWord(p+1) {
			continue
		}
		labels[i] = B
		for m := i + 1; m <= p; m++ {
			labels[m] = I
		}
		i = p
	}
	for e := 1; e+1 < n; e++ {
		if labels[e-1] == O || labels[e] != O || f.info[e].gap != 0 || !f.civilWord(e) ||
			f.info[e].lw != hashGeb && f.info[e].lw != hashNee ||
			labels[e+1] != O || f.info[e+1].caps != capInit || f.info[e+1].gap&^GapSent != 0 {
			continue
		}
		labels[e], labels[e+1] = I, I
	}
}

// civilWord reports whether token k is one of civilWords in lower case, with its full stop ("née"
// needs none), one space or a comma after the word before it.
func (f *featurizer) civilWord(k int) bool {
	tk := &f.info[k]
	if !f.isWord(k) || tk.caps != capLower || tk.gap&^GapComma != 0 {
		return false
	}
	if tk.lw == hashNee {
		return true
	}
	t := f.toks[k]
	return civilWords[tk.lw] && int(t.End) < len(f.text) && f.text[t.End] == '.'
}
