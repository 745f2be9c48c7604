package names

import (
	_ "embed"
	"strings"
	"unicode"
	"unicode/utf8"
)

// This file holds the rules that take back names the tagger found inside the names of firms,
// ships, titles and street corners. Such names are made of surnames and given names ("Sullivan,
// Brooks and Hale LLP", "USNS Bergman", "the corner of Main Street and Elisabeth Parks"), and
// the words that tell them apart often stand further away than the tagger looks.

// hashSet returns the set of the FNV hashes of the words in the space-separated list.
func hashSet(words string) map[uint64]bool {
	set := map[uint64]bool{}
	for _, w := range strings.Fields(words) {
		set[fnv(w)] = true
	}
	return set
}

// firmWords end the name of a firm or another organisation and are seldom a surname: "Wolfram
// Research", "Sullivan, Brooks and Hale LLP", "Thomas and Sons". Words that are also common
// surnames (Church, Post, Bank, Hall) are left out.
var firmWords = hashSet(`inc incorporated ltd llc llp plc corp corporation co gmbh ag kg ohg mbh
	sa sas sarl sàrl spa srl bv nv oy limited associates consulting consultants consultancy holding
	holdings group partners partner partnership technologies technology solutions systems software
	labs laboratories analytics research investments investment capital ventures industries
	enterprises foundation institute university orchestra records studios airlines insurance
	pharmaceuticals logistics motors media networks communications publishing properties design
	designs productions entertainment pictures project
	sons brothers bros söhne soehne fils frères freres hijos hermanos figli fratelli filhos irmãos
	zonen gebroeders gebr`)

// kinWords follow "and" or "&" in the names of family firms: "Thomas and Sons", "Dupont et Fils".
var kinWords = hashSet(`sons brothers bros co company partner partners associates söhne soehne
	fils frères freres cie hijos hermanos cía figli fratelli filhos irmãos cia zonen gebroeders`)

// firmNouns are the heads of the noun phrases that say what a firm, a band, a paper or a team is:
// "Hoffmann is a German multinational company", "Bilka is a Danish chain of hypermarkets".
var firmNouns = hashSet(`company companies firm agency multinational corporation conglomerate
	startup start-up manufacturer retailer consultancy bank brand business enterprise supplier
	distributor publisher studio label chain band newspaper magazine franchise supermarket restaurant club team
	unternehmen firma konzern kanzlei agentur bank hersteller händler marke
	entreprise société societe agence banque firme cabinet marque fabricant
	empresa compañía compania agencia firma banco marca fabricante
	azienda società societa agenzia banca impresa ditta marchio
	bedrijf onderneming firma bureau bank merk fabrikant
	companhia agência agencia banco marca`)

// copulas are the forms of "to be" after which firmNouns are looked for.
var copulas = hashSet(`is was ist war est était etait es era è é`)

// romanceCopulas are the copulas of the languages whose adjectives may follow the noun.
var romanceCopulas = hashSet(`est était etait es era è é`)

// singulars are the singular verbs that, right after a list of surnames, say the list is one
// firm: people are "Smith, Jones and Brown were", a firm "Smith, Jones and Brown is".
var singulars = hashSet(`is was has ist war hat est était etait a es era ha è heeft é tem`)

// articles are the indefinite articles between a copula and its noun phrase.
var articles = hashSet(`a an ein eine einer un une una un' uno een um uma`)

// phraseEnds may follow the head of a noun phrase: "a design agency based in Pelhrimov".
var phraseEnds = hashSet(`based headquartered founded located specialising specializing
	that which with from in of for and mit aus in qui que con de di da van met uit`)

// placeTails end the names of buildings, institutions, trophies, events, papers, shows, lines,
// laws and doctrines, which are often named after people: "Carnegie Hall", "the Alfred Phillips
// House", "the Stanley Cup", "Paxton Carnegie Public Library", "Movement Bodyboarding Magazine",
// "the Alton Light Railway", "the Monroe Doctrine", "the Marshall Plan", "the Sistine Chapel".
// Words that are also surnames (Post, Masters, Temple, Castle) are left out.
var placeTails = hashSet(`library museum theatre theater stadium arena airport station tower cup
	trophy award awards prize memorial cathedral school schoolhouse college university hospital
	institute center centre hotel building house hall park bridge federation association society
	league club festival fest magazine journal review gazette herald tribune chronicle times news
	tour video series show championship championships games railway railroad lines airways
	doctrine act plan treaty amendment accord accords protocol chapel basilica abbey mosque
	synagogue palace`)

// regions are the states and provinces that follow a town's name after a comma ("Cary, North
// Carolina", "Paxton, Illinois"): those of the United States, Canada and Australia, written out
// (two-letter codes are too often initials). Countries are left out: "Usain Bolt, Jamaica" lists a
// person and where they come from.
var regions = hashSet(`alabama alaska arizona arkansas california colorado connecticut delaware
	florida georgia hawaii idaho illinois indiana iowa kansas kentucky louisiana maine maryland
	massachusetts michigan minnesota mississippi missouri montana nebraska nevada ohio oklahoma
	oregon pennsylvania tennessee texas utah vermont virginia washington wisconsin wyoming
	alberta manitoba ontario quebec québec saskatchewan yukon nunavut queensland tasmania victoria`)

// regionFirsts are the first words of two-word regions; regionSeconds their second words.
var regionFirsts, regionSeconds = hashSet(`new north south west rhode british nova prince`),
	hashSet(`hampshire jersey mexico york carolina dakota virginia island columbia scotia edward brunswick wales`)

// countyWords end the names of places only, never of people: a name ending in one is a place
// wherever it stands ("provided by Fairfax County", "Gibson City", "Clarence Dock"). Words that
// are also surnames (Lane, Hill, Bay, Lake, Beach) are left out.
var countyWords = hashSet(`county township borough district parish city village creek falls
	heights springs valley island islands harbour harbor dock docks playfield boulevard avenue
	road square`)

// countyNames are the countyWords after which the word before names the place wherever it stands
// in the text ("Fairfax County … the Fairfax Connector"); a street or a square says less.
var countyNames = hashSet(`county township borough parish`)

// placeHeads begin the names of places only: "Lake Chad", "Mount Hood", "Fort Worth", "North
// Melbourne", "West Palm Beach" (as the last word, West is a surname: "Kanye West").
var placeHeads = hashSet(`lake mount cape fort port isle north south east west`)

// kindNouns name the kind of thing a title or a brand that follows them belongs to: "the band
// Gigi", "the song Gloomy Sunday", "the label, Soleilmoon,". Group and team are left out: "the
// team Maria leads" names her.
var kindNouns = hashSet(`band bands duo trio quartet album albums single song songs film films
	movie movies magazine newspaper label ship horse brand
	gruppe lied zeitschrift zeitung schiff marke groupe chanson journal navire marque grupo
	canción cancion película pelicula revista barco marca gruppo canzone rivista giornale nave
	groep lied tijdschrift krant schip merk`)

// afterKindNoun reports whether the name tokens i to j-1 stand right after one of kindNouns
// (or after it and a comma) and are followed by punctuation, the end of the text or a
// capitalised word: "the band Gigi.", "his band, Gigi, was", "the song Gloomy Sunday". A
// lower-case word after the name makes it a person in a relative clause: "the song Maria wrote".
func (f *featurizer) afterKindNoun(i, j int) bool {
	if i == 0 || !f.isWord(i-1) || f.info[i-1].caps != capLower || !kindNouns[f.info[i-1].lw] ||
		f.info[i].gap&^GapComma != 0 {
		return false
	}
	return j >= len(f.info) || f.info[j].gap != 0 || f.capital(j)
}

// afterPlace reports whether the name starting at token i follows, one space apart, a
// capitalised country, region or city the tagger left out and the gazetteer does not know as a
// given name: "the Montreal Victorias", "the Houston Chronicle", "the Bangladesh Scouts" name
// teams, papers and branches. "Paris Hilton" and "Georgia O'Keeffe" stay: those places are
// given names too. So does a name after a place that a preposition introduces: "In London
// Anna met her sister".
func (f *featurizer) afterPlace(labels []uint8, i int) bool {
	p := i - 1
	return p >= 0 && f.info[i].gap == 0 && labels[p] == O && f.capital(p) && f.class(p)&ClsPlace != 0 &&
		f.info[p].gaz&Given == 0 && (p == 0 || !placePrepositions[f.info[p-1].lw])
}

// placePrepositions introduce a place as where something happens.
var placePrepositions = hashSet(`in at from to near into across via aus nach von bei vor zu
	à au aux en de dans depuis vers en desde hacia cerca a da di dal nel em no na do para
	uit naar bij te op van`)

// eponymNouns follow, in lower case, the name of a prize, a disease or a law of science named
// after someone: "Seven Nobel laureates", "the Pulitzer prize", "Parkinson's disease", "Bayes'
// theorem".
var eponymNouns = hashSet(`laureate laureates prize prizes disease diseases syndrome law theorem
	principle paradox conjecture lemma equation equations constant lymphoma`)

// beforeEponymNoun reports whether one of eponymNouns, in lower case, follows token j-1, the
// last of a name, one space apart.
func (f *featurizer) beforeEponymNoun(j int) bool {
	return j < len(f.info) && f.info[j].gap == 0 && f.info[j].caps == capLower && eponymNouns[f.info[j].lw]
}

// shortCaps reports whether the name is one word of at most four capitals that the gazetteer
// does not know as a given name, not after a person title, next to a word in lower case: an
// abbreviation in running text ("winning by KO", "a lawsuit under RICO"). Text written all in
// capitals ("MR KO", "CALL LEE") and given names ("ask ANA") keep theirs.
func (f *featurizer) shortCaps(labels []uint8, i, j int) bool {
	if j != i+1 || f.info[i].caps != capAll || f.info[i].runes > 4 || f.info[i].gaz&Given != 0 ||
		i > 0 && personTitles[f.info[i-1].lw] {
		return false
	}
	lower := func(k int) bool { return k >= 0 && k < len(labels) && f.isWord(k) && f.info[k].caps == capLower }
	return lower(i-1) || lower(j)
}

// afterCommonCapital reports whether the one-word name at token i follows, with only a space
// between, a capitalised common word that is no name, no lexicon word and not the first word of
// a sentence or line: "Connecticut Classic Lotto", "the Garage Rock of the 60s". A known given
// name keeps its tag ("Happy Birthday Anna").
func (f *featurizer) afterCommonCapital(i, j int) bool {
	if j != i+1 || i < 2 || f.info[i].gap != 0 || f.info[i].gaz&Given != 0 {
		return false
	}
	p := &f.info[i-1]
	if !f.isWord(i-1) || p.caps != capInit || p.gap&(GapStart|GapNewline|GapSent|GapColon|GapQuote|GapBlank) != 0 ||
		p.gaz&Common == 0 || p.gaz&(Given|Surname) != 0 || f.class(i-1) != 0 || !f.isWord(i-2) {
		return false
	}
	// German writes every noun with a capital: "die Familie Wechinger", "der Kollege Huber".
	return !germanArticles[f.info[i-2].lw] && !kinNouns[p.lw] && f.roleStemAt(i-1) < 0
}

// holidayWords name holidays in the greetings for them ("Feliz Navidad", "guten Rutsch",
// "Wesołych Świąt"). The model takes them for names.
var holidayWords = hashSet(`christmas xmas weihnachten weihnacht ostern rutsch neujahr noël navidad
	natale kerstmis kerst nieuwjaar pasen pâques pascua pasqua páscoa świąt swiat wielkanoc
	wielkanocy festas fiestas feste`)

// yearWords and newWords make "new year" in a greeting: "felice Anno Nuovo", "Año Nuevo", "Ano
// Novo", "Nowego Roku" (either order). Alone they may be names (Novo, Nuevo).
var (
	yearWords = hashSet(`año ano anno roku an`)
	newWords  = hashSet(`nuevo novo nuovo nowego nouvel`)
)

// festiveWords wish someone a good holiday: a name right after one is the holiday ("Joyeux
// Noël"), and alone they are no name ("Feliz cumpleaños", "Buon compleanno").
var festiveWords = hashSet(`merry joyeux joyeuses feliz felices buon buone felice frohe fröhliche
	fijne vrolijke gelukkig boas wesołych wesolych szczęśliwego`)

// festive returns, for the name in tokens i to j-1, the token after the last of its words that
// belong to a holiday greeting (a holiday, "new year", a festive word, or a word right after a
// festive one), or -1 when none does: the name, if any, is what follows.
func (f *featurizer) festive(i, j int) int {
	end := -1
	if i > 0 && f.info[i].gap == 0 && festiveWords[f.info[i-1].lw] {
		end = i + 1
	}
	for k := i; k < j; k++ {
		lw := f.info[k].lw
		newYear := k+1 < len(f.info) && f.info[k+1].gap == 0 && (yearWords[lw] && newWords[f.info[k+1].lw] ||
			newWords[lw] && yearWords[f.info[k+1].lw])
		switch {
		case holidayWords[lw], festiveWords[lw]:
			end = k + 1
		case newYear:
			end = min(k+2, j)
		}
	}
	return end
}

// usesCapitals reports whether a word of the text other than the first of a sentence or line is
// written with an initial capital. It reads the text once, on the first call.
func (f *featurizer) usesCapitals() bool {
	if f.cased == 0 {
		f.cased = 1
		for k := range f.info {
			if f.isWord(k) && f.info[k].caps == capInit && f.info[k].gap&(GapStart|GapNewline|GapBlank|GapSent) == 0 {
				f.cased = 2
				break
			}
		}
	}
	return f.cased == 2
}

// afterSpace reports whether token i is the first of the text or follows a space or line break
// (not a handle such as "anna.kowalczyk").
func (f *featurizer) afterSpace(i int) bool {
	start := int(f.toks[i].Start)
	if start == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(f.text[:start])
	return unicode.IsSpace(r)
}

// afterCue reports whether token i follows a title or a word that introduces a name ("mr
// kowalski", "name: kowalski", "ich bin kowalski").
func (f *featurizer) afterCue(i int) bool {
	return i > 0 && f.info[i].gap&^GapColon == 0 && f.isWord(i-1) &&
		(personTitles[f.info[i-1].lw] || f.class(i-1)&(ClsCue|ClsTitle|ClsGreeting|ClsClosing) != 0)
}

// possessiveWords stand before nouns, not before names written in lower case: the possessives of
// the eight languages (possessives in cues.go is the English subset the give-verb rule needs).
// Articles are left out ("fala com o joão", "ho visto la giulia"), and so are "its" (chat for
// "it's") and "ihr" (also "you").
var possessiveWords = hashSet(`his her their my your our sein seine seinen seinem ihre ihren ihrem
	mein meine meinen meinem dein deine son sa ses mon ma mes ton ta su sus mi mis tu tus suo
	sua suoi mio mia zijn haar mijn jouw seu meu minha teu tua jego jej mój moja twój twoja`)

// ordinaryNames are everyday words of the eight languages that the name lists also know as given
// names or surnames: numbers, colours, virtues, flowers, stars, feelings. Written in lower case,
// they are the words.
var ordinaryNames = hashSet(`otto primo secondo quinto serena sereno bella vera felice stella rosa
	gioia speranza luce fiore aurora marina celeste bianca viola grazia pace gemma perla gentile
	costanza fedele giusto libero massimo vittoria santa bruno nero leone lupo orso sole franco
	blanca esperanza cruz paz luz sol mar dolores pilar soledad consuelo amparo gloria victoria
	alegría caridad clemente modesto pura reyes santos nieves flor alba estrella paloma justo
	socorro remedios milagros salvador domingo glória vitória graça esperança estrela branca
	clara dores milagres claire rose constance prudence patience blanche félicité espérance
	grâce victoire aurore céleste marine violette olive perle ange désirée modeste juste franc
	clément fidèle reine fleur étoile colombe ernst frank braun schwarz weiss weiß klein lang
	jung kurz frei stark reich fröhlich fromm kühn froh wild roos jong groot zwart bruin vos
	nadzieja wiktoria róża wiara ginger sandy rusty amber ruby pearl ivy holly daisy violet
	hope faith joy`)

// ordinaryWords reports whether the name i..j is made of everyday words: each a lower-case word
// of ordinaryNames or a word that is no name or also a common word ("sono le otto", "Ho otto
// anni"), at least one of the first kind, and not after a word that introduces a
// name ("mi chiamo serena", "ciao serena", "soy esperanza"). "Ciao Serena" (a
// capital) and "soy esperanza garcía" (a surname) stay.
func (f *featurizer) ordinaryWords(i, j int) bool {
	ordinary := false
	for k := i; k < j; k++ {
		tk := &f.info[k]
		switch {
		case tk.caps == capLower && ordinaryNames[tk.lw]:
			ordinary = true
		case tk.gaz&(Given|Surname) != 0 && tk.gaz&Common == 0:
			return false
		}
	}
	return ordinary && !f.afterCue(i) && (i == 0 || !iAm[f.info[i-1].lw] || !ordinaryNames[f.info[i].lw])
}

// everydayWords reports whether the name i..j is written all in lower case, in a text whose
// writer uses capitals (casedText), and is made of words of everyday, words the name lists do
// not know and common words, at least one of everyday that is no particle ("ti voglio bene", "en
// una caja", "nella seconda serata"), not after a word that introduces a name and not inside a
// handle ("anna.bene"). It is ordinaryWords for the longer, data-built list, with the conditions
// that list needs.
func (f *featurizer) everydayWords(i, j int) bool {
	found := false
	for k := i; k < j; k++ {
		tk := &f.info[k]
		switch {
		case tk.caps != capLower:
			return false
		case everyday[tk.lw]:
			found = found || f.class(k)&ClsParticle == 0
		case tk.gaz&(Given|Surname) != 0 && tk.gaz&Common == 0:
			return false
		}
	}
	return found && !f.afterCue(i) && (i == 0 || !iAm[f.info[i-1].lw]) && f.afterSpace(i) && f.casedText()
}

//go:embed everyday.txt
var everydayFile string

// everyday holds the everyday words of the eight languages that the name lists also know as
// names, as ordinary web text writes them in lower case ("caja", "bene", "nella"; see
// everyday.txt, written by the training command). Unlike ordinaryNames, whose words are kept as
// words in any text, they count only in text whose writer uses capitals: in chat written all in
// lower case, any word may be a name.
var everyday = hashSet(uncomment(everydayFile))

// uncomment drops the lines of text that start with "#".
func uncomment(text string) string {
	var b strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "#") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// iAm are the words for "I am" that the lexicon's cues leave out because they also mean "they
// are" or "I follow": before an everyday word that is also a name, they introduce the name
// ("soy esperanza", "sono serena").
var iAm = hashSet(`soy sou sono suis ben jestem`)

// germanPossessives are the German possessive determiners, in every case.
var germanPossessives = hashSet(`mein meine meinen meinem meiner meines dein deine deinen deinem deiner
	deines sein seine seinen seinem seiner seines ihr ihre ihren ihrem ihrer ihres unser unsere
	unseren unserem unserer unseres euer eure euren eurem eurer eures`)

// roleLabel reports whether token i opens a line, is followed by a colon, is a word the name
// lists do not know and ends like an English agent noun: "Reviewer:", "Approver:",
// "Requester:". Names that end so (Oliver, Taylor) are in the lists.
func (f *featurizer) roleLabel(i int) bool {
	if f.info[i].gap&(GapStart|GapNewline) == 0 || f.info[i].gaz != 0 || i+1 >= len(f.info) ||
		f.info[i+1].gap&GapColon == 0 || f.info[i].runes < 5 {
		return false
	}
	t := f.toks[i]
	w := f.text[t.Start:t.End]
	return strings.HasSuffix(w, "er") || strings.HasSuffix(w, "or")
}

// familyWords are what people call their parents, grandparents and bosses in chat ("Hallo
// Mama,", "Ciao Nonna", "Hi Boss"); the name lists know some of them as names somewhere.
var familyWords = hashSet(`mama mami mamá mamma mammina mom mommy mum mummy maman mãe mamãe mamo
	mamusiu papa papi papá papà pappa dad daddy papai tato tata oma omi opa opi nonna nonno
	abuela abuelo abuelita abuelito vovó vovô avó avô babcia dziadek dziadku babciu grandma
	grandpa granny grandad grandmother grandfather boss doc bro sis`)

// kinNouns name people by their bond to others and stand before a surname in German, where they
// are written with a capital: "Familie Wechinger", "Freund Maier". (Witwe, Bruder, Kollege and
// Nachbar are lexicon words already.)
var kinNouns = hashSet(`familie family famille witwer weduwe widow veuve brother schwester sister
	onkel uncle tante aunt vetter cousin cousine neffe nichte sohn son tochter daughter vater
	father mutter mother gatte gattin freund freundin friend kollegin colleague nachbarin neighbour
	neighbor genosse genossin kamerad kameradin`)

// titleTails complete a title rather than name someone: "the Princess Royal", "the Prince
// Regent", "the Queen Consort".
var titleTails = hashSet(`royal regent consort dowager emeritus emerita`)

// titleHeads are the titles titleTails complete.
var titleHeads = hashSet(`princess prince queen king duchess duke lady lord emperor empress
	prinzessin prinz königin könig princesse prince reine roi princesa príncipe reina rey
	principessa principe regina re prinses prins koningin koning rainha rei`)

// leadingStreets stand before the name of a street, square or avenue in French, Spanish,
// Italian, Portuguese and Polish ("rue Victor Hugo", "calle Alfonso XII", "piazza Garibaldi",
// "rua Augusta"). The abbreviations "ul." and "al." are left out: with them, Dutch newspaper
// text lost names.
var leadingStreets = hashSet(`rue chemin allée impasse quai boulevard avenue calle avenida carrera
	paseo plaza camino via viale piazza corso vicolo largo rua travessa praça praca alameda ulica
	aleja plac`)

// afterStreetWord reports whether the name starting at token i follows, one space apart, a word
// that begins a street's name.
func (f *featurizer) afterStreetWord(i, j int) bool {
	if i == 0 || f.info[i].gap != 0 || !f.isWord(i-1) || !leadingStreets[f.info[i-1].lw] {
		return false
	}
	// English sends things "via Anna": Italian's "via" counts before a house number only.
	return f.info[i-1].lw != hashVia || j < len(f.info) && f.info[j].kind == Number
}

var hashVia = fnv("via")

// holyThings follow "H." (heilige, holy) in Dutch: the Holy See, the Holy Father, the Holy Ghost,
// Mass, the Virgin, the Church, the Scripture.
var holyThings = hashSet(`stoel vader geest hart mis maagd kerk schrift sacrament familie land`)

// honorific reports whether the name is made of initials, lower-case particles and titles only,
// with at least one initial and one title ("Z. K. H. den Prins van Oranje" as far as "Prins",
// "Z. M. de Koning"), or is "H." before one of holyThings ("den H. Stoel").
func (f *featurizer) honorific(i, j int) bool {
	if j == i+2 && f.initial(i) && f.text[f.toks[i].Start] == 'H' && holyThings[f.info[i+1].lw] {
		return true
	}
	initials, titles := 0, 0
	for k := i; k < j; k++ {
		switch {
		case f.initial(k):
			initials++
		case f.capital(k) && titleHeads[f.info[k].lw]:
			titles++
		case f.info[k].caps == capLower && f.class(k)&ClsParticle != 0:
		default:
			return false
		}
	}
	return initials > 0 && titles > 0
}

// shipPrefixes stand before a ship's name in an address ("USNS Bergman, FPO AP 93757").
var shipPrefixes = hashSet(`uss usns uscgc usnv usat hms hmcs hmas hmnzs rms`)

// cornerWords introduce two streets that meet: "the corner of Main Street and Elisabeth Parks".
var cornerWords = hashSet(`corner intersection junction crossing ecke kreuzung angle carrefour
	croisement esquina cruce intersección angolo incrocio hoek kruising cruzamento`)

// voiceAssistants are the names of voice assistants, which are also given names; carMakers are
// makes of car the tagger takes for surnames. They are kept out of the lexicon the tagger's
// features read, so that the training command still rebuilds the shipped tagger byte for byte.
var (
	voiceAssistants = hashSet(`siri alexa cortana bixby`)
	carMakers       = hashSet(`chevrolet chevy cadillac buick chrysler pontiac lamborghini maserati
		opel skoda citroën citroen hyundai mazda nissan subaru lexus`)
)

// product reports whether token k is a product or brand of the lexicon, a car maker or a voice
// assistant.
func (f *featurizer) product(k int) bool {
	return f.class(k)&ClsProduct != 0 || carMakers[f.info[k].lw] || voiceAssistants[f.info[k].lw]
}

// dropNonPeople applies the rules of this file to the tagger's labels. A name found to be a
// firm's ("Eberhard Faber GmbH") is taken back wherever else the same words were tagged in the
// text ("Eberhard Faber also makes…"), since the service redacts every occurrence of a name.
func dropNonPeople(f *featurizer, labels []uint8) {
	firms := map[uint64]bool{}
	// Towns before a region ("Hayward, California"), tagged or not: the tagger may take the same
	// word for a name elsewhere ("the City Of Hayward").
	for k := 0; k+1 < len(labels); k++ {
		if f.off["town-before-region"] {
			break
		}
		if f.capital(k) && f.info[k].caps == capInit && labels[k] != I && (f.regionAfter(labels, k+1) ||
			f.info[k+1].gap == 0 && f.capital(k+1) && countyNames[f.info[k+1].lw]) {
			firms[f.spanHash(k, k+1)] = true
		}
	}
	eachName(labels, func(i, j int) {
		switch {
		case !f.off["street"] && f.afterStreetWord(i, j):
			// "14 rue Victor Hugo", "via Giuseppe Garibaldi 5": a street named after someone.
			clear(labels[i:j])
		case !f.off["honorific"] && f.honorific(i, j):
			// "Z. K. H. den Prins", "H. M. de Koningin", "de H. Stoel": abbreviated honours
			// before a title, and the Holy See, are no names.
			clear(labels[i:j])
		case !f.off["title-tail"] && f.titleTail(i, j), !f.off["ship"] && f.afterShipPrefix(i),
			!f.off["building"] && f.afterBuilding(labels, i, j), !f.off["event"] && f.afterEvent(labels, i, j),
			!f.off["corner"] && f.atCorner(i), !f.off["place-name"] && f.placeName(labels, i, j),
			!f.off["region-of-town"] && f.regionOfTown(labels, i, j):
			clear(labels[i:j])
		case !f.off["city"] && f.inCity(labels, i):
			// "moved to Los Angeles", "the San Francisco Giants": a city whose second word is a
			// given name, and the team after it, wherever else they stand.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["brand-model"] && i > 0 && f.info[i].gap == 0 && labels[i-1] == O && f.capital(i-1) && f.product(i-1):
			// "the Ford Mustang", "a Chevrolet Corvette": a model of a brand.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["after-place"] && f.afterPlace(labels, i):
			// "the Montreal Victorias", "the Houston Chronicle": a team, a paper, a branch.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["lone-lower-surname"] && j == i+1 && f.info[i].caps == capLower && f.info[i].gaz&Given == 0 && !f.afterCue(i) &&
			f.afterSpace(i) && f.usesCapitals():
			// "Ciao Nonna, ti voglio bene": a lone word in lower case that is at most a surname
			// somewhere, in a text whose writer uses capitals. (In text all in lower case,
			// "bártová began writing", it stays.)
			clear(labels[i:j])
		case !f.off["after-possessive"] && f.info[i].caps == capLower && i > 0 && f.info[i].gap == 0 && possessiveWords[f.info[i-1].lw]:
			// "Jack lost his jack", "my iban is…": a word in lower case after a possessive is a
			// noun.
			clear(labels[i:j])
		case !f.off["ordinary-words"] && f.ordinaryWords(i, j), !f.off["everyday-words"] && f.everydayWords(i, j):
			// "la giornata è serena", "sono le otto", "la camisa es blanca": everyday words
			// that are also given names, written in lower case as words are.
			clear(labels[i:j])
		case !f.off["german-possessive"] && j == i+1 && f.info[i].gaz == 0 && i > 0 && f.info[i].gap == 0 && germanPossessives[f.info[i-1].lw]:
			// "Meine Karte wurde doppelt belastet": German writes nouns with a capital; a word
			// the name lists do not know after a possessive is one.
			clear(labels[i:j])
		case !f.off["role-label"] && j == i+1 && f.roleLabel(i):
			// "Reviewer: please check": a role that opens a line, not a speaker's name.
			clear(labels[i:j])
		case !f.off["car-assistant"] && j == i+1 && f.info[i].caps != capLower && (carMakers[f.info[i].lw] ||
			voiceAssistants[f.info[i].lw] && !(i > 0 && f.greeting(i-1))):
			// "My Nissan broke down", "Siri didn't understand my request": a car or a voice
			// assistant. With a surname ("Siri Andersen") or after a greeting ("Hi Alexa,") an
			// assistant's name is a person's.
			clear(labels[i:j])
		case !f.off["adverb"] && f.info[i].gaz&(Given|Surname) == 0 && f.adverb(i):
			// "Hierdoor was dit font…", "Kortom, de inboedel…", "Vanaf Wolvertem": an adverb
			// that opens a sentence is no part of a name.
			labels[i] = O
			if j > i+1 {
				labels[i+1] = B
			}
		case !f.off["family-word"] && j == i+1 && familyWords[f.info[i].lw]:
			// "Hallo Mama,", "Ciao Nonna": how one addresses family, not a name.
			clear(labels[i:j])
		case !f.off["festive"] && f.festive(i, j) >= 0:
			// "Feliz Navidad", "Buon Natale", "Joyeux Noël": a greeting for a holiday. A name
			// after the holiday stays ("Merry Christmas Anna").
			k := f.festive(i, j)
			clear(labels[i:k])
			if k < j {
				labels[k] = B
			}
		case !f.off["known-phrase"] && f.inKnownPhrase(i, j):
			// "a Calvin Klein jacket", "my Charles Schwab account", "from Hong Kong", "in Puerto
			// Rico": a brand, or a country or city whose words the name lists know as names,
			// wherever else it stands in the text.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["common-capital"] && f.afterCommonCapital(i, j):
			// "Classic Lotto", "Garage Rock": a capitalised phrase, wherever it stands.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["short-caps"] && f.shortCaps(labels, i, j):
			// "by KO", "under RICO": an abbreviation, here only.
			clear(labels[i:j])
		case !f.off["eponym"] && f.beforeEponymNoun(j):
			// "Nobel laureates": the prize, wherever else it stands in the text.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["kind-noun"] && f.afterKindNoun(i, j):
			// "the band Gigi": the band, wherever else it stands in the text.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["town-before-region"] && j == i+1 && f.regionAfter(labels, j):
			// "Hayward, California": a town, wherever else it stands in the text.
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		case !f.off["firm"] && f.firmAfter(labels, i, j):
			for _, k := range f.clearList(labels, i) {
				firms[f.spanHash(k, k+1)] = true
			}
			firms[f.spanHash(i, j)] = true
			clear(labels[i:j])
		}
	})
	if !f.off["firm-lists"] {
		for _, k := range f.dropFirmLists(labels) {
			firms[f.spanHash(k, k+1)] = true
		}
	}
	if len(firms) == 0 || f.off["taken-back-everywhere"] {
		return
	}
	eachName(labels, func(i, j int) {
		if firms[f.spanHash(i, j)] {
			clear(labels[i:j])
		}
	})
}

// inLongerName reports whether token k is part of a name of two or more words.
func inLongerName(labels []uint8, k int) bool {
	return labels[k] == I || k+1 < len(labels) && labels[k+1] == I
}

// eachName calls fn with the tokens i to j-1 of every name in labels, from left to right; fn may
// change labels before j.
func eachName(labels []uint8, fn func(i, j int)) {
	for i := 0; i < len(labels); {
		if labels[i] != B {
			i++
			continue
		}
		j := i + 1
		for j < len(labels) && labels[j] == I {
			j++
		}
		fn(i, j)
		i = j
	}
}

// spanHash returns a hash of the lower-case words of tokens i to j-1.
func (f *featurizer) spanHash(i, j int) uint64 {
	h := uint64(j - i)
	for k := i; k < j; k++ {
		h = mix(h, f.info[k].lw)
	}
	return h
}

// placeName reports whether the name tokens i to j-1 are part of the name of a building, an
// institution, a trophy or an event: they end in one of placeTails after "the" or after another
// capitalised word that is not a title or a role ("the Alfred Phillips House", "Carnegie Hall"), or one of
// placeTails follows them after at most two more capitalised words ("Paxton Water Tower").
func (f *featurizer) placeName(labels []uint8, i, j int) bool {
	if f.capital(j-1) && countyWords[f.info[j-1].lw] || j > i+1 && placeHeads[f.info[i].lw] && f.allCapital(i, j) {
		return true
	}
	if f.capital(j-1) && placeTails[f.info[j-1].lw] && i > 0 && f.info[i].gap == 0 {
		if p := i - 1; f.info[p].lw == hashThe || f.capital(p) && labels[p] == O && f.class(p)&(ClsTitle|ClsRole) == 0 && !personTitles[f.info[p].lw] {
			return true
		}
	}
	return f.endsWithin(labels, j, placeTails) || f.endsWithin(labels, j, countyWords)
}

// allCapital reports whether tokens i to j-1 are all words written with a capital: a place's
// name, not a tagged run such as "North Melbourne player Michael Gaudion".
func (f *featurizer) allCapital(i, j int) bool {
	for k := i; k < j; k++ {
		if !f.capital(k) {
			return false
		}
	}
	return true
}

// endsWithin reports whether one of the capitalised words from token j on, one space apart and
// at most three, none of them tagged, is in set: the word that ends a name the tagged name
// starts ("Paxton Water Tower", "Nera Economic Consulting").
func (f *featurizer) endsWithin(labels []uint8, j int, set map[uint64]bool) bool {
	for k := j; k < j+3 && k < len(labels); k++ {
		if !f.capital(k) || f.info[k].gap != 0 || labels[k] != O {
			return false
		}
		if set[f.info[k].lw] {
			return true
		}
	}
	return false
}

// regionAfter reports whether a comma and a region written with a capital follow: token k is
// the region's first word.
// A one-word region that is also a given name and that the tagger took for a name is a name in a
// list ("Anna, Victoria and Ben").
func (f *featurizer) regionAfter(labels []uint8, k int) bool {
	if !f.capital(k) || f.info[k].gap&^GapComma != 0 || f.info[k].gap == 0 {
		return false
	}
	if f.twoWordRegion(k) {
		return true
	}
	return regions[f.info[k].lw] && (labels[k] == O || f.info[k].gaz&Given == 0)
}

// twoWordRegion reports whether tokens k and k+1 are a two-word region ("North Carolina").
func (f *featurizer) twoWordRegion(k int) bool {
	return regionFirsts[f.info[k].lw] && f.capital(k+1) && f.info[k+1].gap == 0 && regionSeconds[f.info[k+1].lw]
}

// regionOfTown reports whether the name is a region ("North Carolina", "Illinois"; not one that
// is also a given name, such as "Victoria") after a comma and a capitalised word that is not a
// name: the town it is the region of.
func (f *featurizer) regionOfTown(labels []uint8, i, j int) bool {
	if j-i > 2 || !f.capital(i-1) || labels[i-1] != O || f.info[i].gap != GapComma {
		return false
	}
	if j-i == 1 {
		return regions[f.info[i].lw] && f.info[i].gaz&Given == 0
	}
	return f.twoWordRegion(i)
}

// hashThe is the hash of "the".
var hashThe = fnv("the")

// isWord reports whether token i exists and is a word.
func (f *featurizer) isWord(i int) bool { return i >= 0 && i < len(f.info) && f.info[i].kind == Word }

// capital reports whether token i is a word written with a capital.
func (f *featurizer) capital(i int) bool {
	return f.isWord(i) && f.info[i].caps != capLower
}

// titleTail reports whether the name is one word of titleTails after a title ("the Princess
// Royal").
func (f *featurizer) titleTail(i, j int) bool {
	return j == i+1 && i > 0 && titleTails[f.info[i].lw] && f.info[i].gap == 0 && titleHeads[f.info[i-1].lw]
}

// buildingHeads begin the names of houses, inns, shops and halls, which are often named after
// people: "Villa Wieser", "Palazzo Doria", "Gasthaus Engl", "Hotel Adlon", "Café Sacher",
// "Salone Erna", "Trattoria Da Mario".
var buildingHeads = hashSet(`villa palazzo palais palast schloss schloß castello château chateau
	kasteel gasthaus gasthof wirtshaus hotel pension albergo hostal café cafe caffè caffe restaurant
	ristorante trattoria pizzeria osteria taverna brasserie bistro salone salon teatro théâtre
	theater theatre kino cinema galerie galleria`)

// afterBuilding reports whether the name starts with, or right after, a capitalised word that
// begins the name of a building, an inn or a shop: "Villa Wieser", "Gasthaus Engl".
func (f *featurizer) afterBuilding(labels []uint8, i, j int) bool {
	return f.afterHead(labels, i, j, buildingHeads, capInit)
}

// eventHeads begin the names of storms, weather systems and military operations, which are
// given people's names: "Hurricane Katrina", "l'ouragan Irma", "Sturmtief Sabine", "Tief
// Bernd", "Operation Barbarossa".
var eventHeads = hashSet(`hurricane typhoon cyclone storm ouragan tempête huracán huracan tormenta
	borrasca ciclón tifón uragano ciclone tempesta tifone furacão furacao tempestade tufão orkaan
	sturm orkan sturmtief tief hoch taifun zyklon operation opération operación operazione
	operação operatie unternehmen l'ouragan l'opération l'uragano l'operazione`)

// afterEvent reports whether the name starts with, or right after, a word that begins the name
// of a storm or an operation, written with a capital or in lower case ("el huracán Irma"). A
// person named Storm loses the name ("Storm Reid"): storms are named far more often.
func (f *featurizer) afterEvent(labels []uint8, i, j int) bool {
	return f.afterHead(labels, i, j, eventHeads, capInit) || f.afterHead(labels, i, j, eventHeads, capLower)
}

// afterHead reports whether the name i..j starts with a word of heads written with caps,
// followed by more of the name, or follows such a word, outside any name, one space apart.
func (f *featurizer) afterHead(labels []uint8, i, j int, heads map[uint64]bool, caps uint8) bool {
	head := func(k int) bool { return f.isWord(k) && f.info[k].caps == caps && heads[f.info[k].lw] }
	return j > i+1 && head(i) || i > 0 && f.info[i].gap == 0 && labels[i-1] == O && head(i-1)
}

// cityPairs are cities of two words whose second word is a given name: the tagger takes "Los
// Angeles" for "Angeles" and "St. Louis Cardinals" for "Louis Cardinals".
var cityPairs = phraseSet(`los angeles
san francisco
san antonio
san jose
san josé
san diego
san juan
san pedro
san marino
san remo
san sebastián
santa monica
santa barbara
santa clara
santa cruz
santa fe
santo domingo
são paulo
sao paulo
st louis
saint louis
st petersburg
saint petersburg
port elizabeth
port louis
fort william
fort george`)

// inCity reports whether the name starting at token i begins with the second word of one of
// cityPairs, or follows one of them one space apart ("the San Francisco Giants").
func (f *featurizer) inCity(labels []uint8, i int) bool {
	pair := func(k int) bool { return k >= 0 && f.capital(k) && f.capital(k+1) && cityPairs[f.spanHash(k, k+2)] }
	return pair(i-1) || i >= 2 && f.info[i].gap == 0 && labels[i-1] == O && labels[i-2] == O && pair(i-2)
}

// afterShipPrefix reports whether the name starts with, or right after, a ship prefix written in
// capitals.
func (f *featurizer) afterShipPrefix(i int) bool {
	is := func(k int) bool { return f.isWord(k) && f.info[k].caps == capAll && shipPrefixes[f.info[k].lw] }
	return is(i) || i > 0 && f.info[i].gap == 0 && is(i-1)
}

// atCorner reports whether the name stands in the names of two streets that meet: within the
// ten tokens after "corner of" and its equivalents, on the same line, in the same sentence and
// with no comma between ("approaching the crossing, and that Tower Man George F. Hauser" names
// him).
func (f *featurizer) atCorner(i int) bool {
	for k := i - 1; k >= 0 && k >= i-10; k-- {
		tk := &f.info[k+1]
		if tk.gap&(GapNewline|GapStart|GapComma) != 0 || tk.gap&GapSent != 0 && f.capital(k+1) && !f.abbreviation(k) {
			return false
		}
		if cornerWords[f.info[k].lw] {
			return true
		}
	}
	return false
}

// abbreviation reports whether token k is a word short enough to be an abbreviation that a
// period follows ("ul. Cicha", "Blvd. Haussmann").
func (f *featurizer) abbreviation(k int) bool {
	return f.isWord(k) && f.info[k].runes <= 4
}

// firmAfter reports whether what follows the name tokens i to j-1 makes it a firm's: a firm word
// after at most two more capitalised words ("Wolfram Research", "Nera Economic Consulting"),
// "and Sons" or "& Co", "is a … company" or "was founded"; or whether the name's own last word is a firm word
// ("Hale LLP").
func (f *featurizer) firmAfter(labels []uint8, i, j int) bool {
	if j-i > 1 && f.capital(j-1) && firmWords[f.info[j-1].lw] {
		return true
	}
	if f.endsWithin(labels, j, firmWords) {
		return true
	}
	if f.capital(j+1) && kinWords[f.info[j+1].lw] && f.info[j+1].gap == 0 &&
		(f.info[j].gap == 0 && listAnd[f.info[j].lw]) {
		return true
	}
	if f.capital(j) && kinWords[f.info[j].lw] && f.ampersandBefore(j) {
		return true
	}
	return f.firmPredicate(j) || f.firmPassive(j)
}

// firmPassives are the participles that, after "was" or "is", say what happens to firms and
// never to people: "Caloi was founded in 1898", "Acme is headquartered in Leeds". "Listed",
// "acquired" and "renamed" are left out: "Anna is listed as the contact", "Smith was acquired
// by the Yankees".
var firmPassives = hashSet(`founded headquartered incorporated established delisted gegründet
	fondée fondé fundada fundado fondata fondato opgericht`)

// firmAuxiliaries stand between a firm's name and one of firmPassives.
var firmAuxiliaries = hashSet(`was is were are has been wurde ist a été est fue es fu è werd is foi é`)

// firmPassive reports whether the tokens from k on are an auxiliary and one of firmPassives
// (with "been" between, or an adverb: "was originally founded").
func (f *featurizer) firmPassive(k int) bool {
	if !f.isWord(k) || f.info[k].gap != 0 || !firmAuxiliaries[f.info[k].lw] {
		return false
	}
	for n := k + 1; n <= k+3 && f.isWord(n) && f.info[n].gap == 0; n++ {
		if firmPassives[f.info[n].lw] {
			return true
		}
		if !firmAuxiliaries[f.info[n].lw] && !strings.HasSuffix(f.lowerAt(n), "ly") {
			return false
		}
	}
	return false
}

// ampersandBefore reports whether only "&" and spaces stand between token k and the one before.
func (f *featurizer) ampersandBefore(k int) bool {
	if k <= 0 || f.info[k].gap != GapOther {
		return false
	}
	between := strings.TrimSpace(f.text[f.toks[k-1].End:f.toks[k].Start])
	return between == "&"
}

// firmPredicate reports whether the tokens from k on say "is a … company": a copula, an
// indefinite article and a noun phrase of at most four words, without function words, whose head
// is one of firmNouns. In English and German the head ends the phrase; in the Romance languages
// an adjective may follow it ("une entreprise familiale").
func (f *featurizer) firmPredicate(k int) bool {
	if !f.isWord(k) || f.info[k].gap != 0 || !copulas[f.info[k].lw] {
		return false
	}
	romance := romanceCopulas[f.info[k].lw]
	k++
	if !f.isWord(k) || f.info[k].gap != 0 {
		return false
	}
	if lw := f.lowerAt(k); strings.HasPrefix(lw, "un'") {
		// "un'azienda": the article and the noun are one token.
		return firmNouns[fnv(strings.TrimPrefix(lw, "un'"))]
	}
	if !articles[f.info[k].lw] {
		return false
	}
	for n := k + 1; n <= k+4 && f.isWord(n) && f.info[n].gap == 0; n++ {
		if phraseEnds[f.info[n].lw] || f.class(n)&ClsFunction != 0 {
			return false
		}
		if !firmNouns[f.info[n].lw] {
			continue
		}
		if next := n + 1; romance || !f.isWord(next) || f.info[next].gap != 0 || phraseEnds[f.info[next].lw] {
			return true
		}
	}
	return false
}

// lowerAt returns the lower-case text of token k.
func (f *featurizer) lowerAt(k int) string {
	t := f.toks[k]
	return string(appendLower(nil, f.text[t.Start:t.End]))
}

// clearList takes the name label off the items of the list whose last item is token i ("The
// Davis, Reynolds and Williamson Orchestra"), when every item is one word: a list with a full
// name in it names people.
// It returns the items whose label it took off.
func (f *featurizer) clearList(labels []uint8, i int) []int {
	var items []int
	for k := f.listItem(labels, i, -1); k >= 0 && len(items) < 8; k = f.listItem(labels, k, -1) {
		if inLongerName(labels, k) {
			return nil
		}
		if labels[k] == B {
			items = append(items, k)
		}
	}
	for _, k := range items {
		labels[k] = O
	}
	return items
}

// dropFirmLists takes the name label off the items of lists of three or more one-word items that
// are the name of a firm: followed by a singular verb ("Lopez, Santos and Coleman is a design
// agency") or a firm word, or alone on a line of an address block ("Marshall, Hernandez and Simpson" between a
// name and a street). People's names in lists are mostly given names, or come with the verbs of
// plural subjects.
// It returns the items whose label it took off.
func (f *featurizer) dropFirmLists(labels []uint8) []int {
	var dropped []int
	done := -1 // the last token of the last list looked at
	for b := 0; b < len(labels); b++ {
		if labels[b] != B || b <= done {
			continue
		}
		// The list, if any, that the name at b is an item of starts at i.
		i := b
		for n := 0; n < 8; n++ {
			k := f.listItem(labels, i, -1)
			if k < 0 {
				break
			}
			i = k
		}
		if !f.listStart(labels, i) {
			continue
		}
		items := []int{i}
		for k := f.listItem(labels, i, +1); k >= 0 && len(items) < 8; k = f.listItem(labels, k, +1) {
			items = append(items, k)
		}
		last := items[len(items)-1]
		if len(items) < 3 || !listAnd[f.info[last-1].lw] {
			continue
		}
		named := false
		for _, k := range items {
			if inLongerName(labels, k) {
				named = false
				break
			}
			named = named || labels[k] == B
		}
		if named && (f.singularAfter(last) || f.firmWordAfter(last) || f.aloneInBlock(labels, items[0], last)) {
			for _, k := range items {
				if labels[k] == B {
					dropped = append(dropped, k)
				}
				labels[k] = O
			}
		}
		done = last
	}
	return dropped
}

// listStart reports whether token i could begin a list of one-word items: nothing joins it to a
// word before.
func (f *featurizer) listStart(labels []uint8, i int) bool {
	return f.listItem(labels, i, -1) < 0
}

// firmWordAfter reports whether a firm word follows token k ("Clark, Romero and Hall
// Orchestra").
func (f *featurizer) firmWordAfter(k int) bool {
	return f.capital(k+1) && f.info[k+1].gap == 0 && firmWords[f.info[k+1].lw]
}

// singularAfter reports whether a singular verb follows token k.
func (f *featurizer) singularAfter(k int) bool {
	return f.isWord(k+1) && f.info[k+1].gap == 0 && singulars[f.info[k+1].lw]
}

// aloneInBlock reports whether tokens first to last fill a line of their own (apart from quote
// marks such as ">") in an address block or a signature: the line before holds a name, or the
// line after starts with a number (a street address). "Attendees:\nAnna, Ben and Carla\nAgenda"
// and "Love,\nAnna, Ben and Carla" are neither.
func (f *featurizer) aloneInBlock(labels []uint8, first, last int) bool {
	if first == 0 || f.info[first].gap&GapNewline == 0 || last+1 >= len(f.info) ||
		f.info[last+1].gap&GapNewline == 0 {
		return false
	}
	if f.info[last+1].kind == Number {
		return true
	}
	for p := first - 1; p >= 0 && p >= first-12; p-- {
		if labels[p] == B {
			return true
		}
		if f.info[p].gap&(GapNewline|GapStart) != 0 {
			break
		}
	}
	return false
}

// casedText reports whether the writer of the text uses capitals: it opens with a capitalised
// word, or has one inside a sentence.
func (f *featurizer) casedText() bool {
	return len(f.info) > 0 && f.isWord(0) && f.info[0].caps == capInit || f.usesCapitals()
}
