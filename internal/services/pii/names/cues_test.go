package names

import "testing"

func TestAddPeople(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, addPeople, []labelCase{
		{"Novel", "Unlike the Jensen novel", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"TwoWordAuthor", "the Stieg Larsson novels", []uint8{O, O, O, O}, []uint8{O, B, I, O}},
		{"Administration", "during the Johnson administration", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"NovelPlace", "the Paris novel", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NovelAllCaps", "the BBC novel", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NovelThreeWords", "the Big Red Dog novel", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"NoWorkNoun", "the Jensen car", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Given", "Kevin had given Alma his address", []uint8{B, O, O, O, O, O}, []uint8{B, O, O, B, O, O}},
		{"Sent", "I sent Maaike her keys", []uint8{O, O, O, O, O}, []uint8{O, O, B, O, O}},
		{"GivenNoPossessive", "they gave Alma a book", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"GivenPlace", "I told Paris my plans", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"ExBand", "by ex-Zombie Ryhänen is", []uint8{O, B, O, O}, []uint8{O, O, B, O}},
		{"ExBandInside", "by ex-Zombie Ryhänen is", []uint8{O, B, I, O}, []uint8{O, O, B, O}},
		{"ExLowerCase", "by ex-Zombie striker", []uint8{O, O, O}, []uint8{O, O, O}},
		{"ExWife", "my ex-wife Anna", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Founders", "our 3 founders: Gerste, Johnson and Pratt", []uint8{O, O, O, O, O, O, O}, []uint8{O, O, O, B, B, O, B}},
		{"FoundersStopAtWord", "our founders: Gerste and the team", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, O, O, O}},
		{"MembersNoColon", "the members Gerste and Pratt", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"Speakers", "Ubul: What a wife.\nDestiny: Remember me.\nNicole: Yes", []uint8{O, O, O, O, O, O, O, B, O}, []uint8{B, O, O, O, B, O, O, B, O}},
		{"SpeakersNoneNamed", "Ella: What a wife.\nDestiny: Remember me.", []uint8{O, O, O, O, O, O, O}, []uint8{O, O, O, O, O, O, O}},
		{"SpeakersOneLine", "Ella: What a wife, Destiny", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		{"SpeakersLexicon", "Nicole: hi\nUser: hello", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
		{"LabelAtLineEnd", "Nicole: hi\nAddress:\nMain", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
	})
}

func TestMarkInitials(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("maas", Surname)
	b.Add("nord", Surname)
	b.Add("introduction", Common)
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"InitialParticle", "wed. van A. van Pelt, oud", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, I, I, O}},
		{"TwoInitialsParticles", "J. W. ten Brink kwam", []uint8{O, O, O, O, O}, []uint8{B, I, I, I, O}},
		{"TwoInitialsSurname", "bij A. W. Maas te", []uint8{O, O, O, O, O}, []uint8{O, B, I, I, O}},
		{"OneInitialSurname", "Château ( T. Nord 39 )", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"Heading", "A. B. Introduction", []uint8{O, O, O}, []uint8{O, O, O}},
		{"TaggedFromParticle", "A. van Pelt", []uint8{O, B, I}, []uint8{B, I, I}},
		{"AlreadyTagged", "A. van Pelt", []uint8{B, I, I}, []uint8{B, I, I}},
		{"ParticleThenLowerCase", "A. van de kerk", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"InitialParticleRoleWord", "A. van Dokter jd.", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"GermanGenitiveNoun", "K. des Uhrenmachers kam", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"ParticleDes", "J. des Tombe kam", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"InitialParticleFunctionWord", "A. van Son jd.", []uint8{O, O, O, O}, []uint8{B, I, I, O}},
		{"InitialParticleLowerFunctionWord", "A. van son jd.", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"InitialRoleWord", "A. W. Dokter kwam", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"NoPeriod", "A van Pelt", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NextLine", "A. van\nPelt", []uint8{O, O, O}, []uint8{O, O, O}},
		{"TwoInitialsUnknownWord", "tot lid F. J. Pompe, weth.", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, I, I, O}},
		{"GluedInitialsUnknownWord", "the U.S. Olympic team", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"InitialBeforeTagged", "A. Somers geb. Thai", []uint8{O, B, O, O}, []uint8{B, I, I, I}},
		{"InitialsParticleBeforeTagged", "H. M. van Dijk gob.", []uint8{O, O, B, I, O}, []uint8{B, I, I, I, O}},
		{"MonsieurBeforeTagged", "M. Dupont a dit", []uint8{O, B, O, O}, []uint8{O, B, O, O}},
		{"MiddleInitialBeforeTagged", "Faina D. Yefremova wrote", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
	})
}

func TestTitleLists(t *testing.T) {
	checkRule(t, NewGazetteerBuilder().Build(), addPeople, []labelCase{
		{"Dutch", "de heeren Thorbecke en Olivier hebben", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, O, B, O}},
		{"MultiWordItems", "de heeren Fransen van de Putte, Cremers en Huijssen hunne",
			[]uint8{O, O, O, O, O, O, O, O, O, O}, []uint8{O, O, B, I, I, I, B, O, B, O}},
		{"Initials", "de heeren J. Pompe en A. van Baar", []uint8{O, O, O, O, O, O, O, O}, []uint8{O, O, B, I, O, B, I, I}},
		{"GermanOffice", "die Herren Bürgermeister Sitt und Slansky eröffneten", []uint8{O, O, O, O, O, O, O}, []uint8{O, O, O, B, O, B, O}},
		{"French", "messieurs Dupont et Durand", []uint8{O, O, O, O}, []uint8{O, B, O, B}},
		{"Comma", "Meine Damen und Herren, Wir", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"StopsAtLowerCase", "die Herren Müller und andere", []uint8{O, O, O, O, O}, []uint8{O, O, B, O, O}},
		{"Month", "die Herren Januar", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Portuguese", "os Senhores Desembargadores da", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"TitleAtEnd", "de heeren", []uint8{O, O}, []uint8{O, O}},
	})
}

func TestRoleTitles(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("tafel", Common)
	b.Add("charlotte", Given)
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"LowerCaseDutch", "de minister Thorbecke sprak", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"GermanCompound", "Außenminister Stresemann erklärte", []uint8{O, O, O}, []uint8{O, B, O}},
		{"FrenchLowerCase", "le général Chanzy est", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"CapitalisedStemAlone", "General Motors said", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Particle", "minister van Financiën", []uint8{O, O, O}, []uint8{O, O, O}},
		{"CommonWord", "minister Tafel", []uint8{O, O}, []uint8{O, O}},
		{"Place", "minister Frankrijk", []uint8{O, O}, []uint8{O, O}},
		{"Cabinet", "het kabinet Rutte viel", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"CabinetGermanArticle", "das Kabinett Scholz", []uint8{O, O, O}, []uint8{O, O, B}},
		{"CabinetCapitalised", "Cabinet Office said", []uint8{O, O, O}, []uint8{O, O, O}},
		{"PlaceThatIsGivenName", "met prinses Charlotte huwde", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"PlaceThatIsGivenNameAlone", "naar Charlotte reisde", []uint8{O, O, O}, []uint8{O, O, O}},
		{"AfterComma", "der Minister, Stresemann", []uint8{O, O, O}, []uint8{O, O, O}},
		{"ShortCompound", "Exminister Stresemann", []uint8{O, O}, []uint8{O, B}},
		{"RoleParticle", "generaal de Chazal sprak", []uint8{O, O, O, O}, []uint8{O, B, I, O}},
		{"RoleTwoParticles", "le ministre de la Guerre", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"RoleVan", "minister van Oorlog", []uint8{O, O, O}, []uint8{O, O, O}},
		{"GermanArticle", "an dem Aufseher Reinicke", []uint8{O, O, O, O}, []uint8{O, O, O, B}},
		{"EnglishArticle", "the General Motors plant", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
	})
}

func TestMarkGreeted(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("mark", Given)
	b.Add("grace", Given|Common)
	b.Add("smith", Surname)
	for _, w := range []string{"team", "all", "world", "valued", "again"} {
		b.Add(w, Common)
	}
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"Comma", "Hi Mark, the invoice", []uint8{O, O, O, O}, []uint8{O, B, O, O}},
		{"CommonGivenName", "Dear Grace,\nplease", []uint8{O, O, O}, []uint8{O, B, O}},
		{"LineBreak", "Hi Mark\nThe invoice", []uint8{O, O, O, O}, []uint8{O, B, O, O}},
		{"EndOfText", "thanks, bye\nThanks Mark", []uint8{O, O, O, O}, []uint8{O, O, O, B}},
		{"TwoWords", "Hi Mark Smith, welcome", []uint8{O, O, O, O}, []uint8{O, B, I, O}},
		{"GoodMorning", "Good morning Mark, quick question", []uint8{O, O, O, O, O}, []uint8{O, O, B, O, O}},
		{"UnknownWord", "Hola Xiadani, te envío", []uint8{O, O, O, O}, []uint8{O, B, O, O}},
		{"Team", "Hi Team, quick update", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"All", "Hi All, the meeting", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"Title", "Dear Sir, I write", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"CommonSecondWord", "Dear Valued Customer, thanks", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"NoPunctuation", "Hi Mark the invoice", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"NotAtLineStart", "I said hi Mark, then left", []uint8{O, O, O, O, O, O}, []uint8{O, O, O, O, O, O}},
		{"MidSentenceGood", "a good morning Mark, then", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"AfterSentence", "Done. Thanks Mark!", []uint8{O, O, O}, []uint8{O, O, B}},
		{"AlreadyTagged", "Hi Mark Smith, hi", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
	})
}

func TestMarkGenitives(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("luther", Given)
	b.Add("chamberlain", Surname)
	b.Add("bauer", Surname|Common)
	b.Add("green", Given|Surname|Common)
	b.Add("falcon", Surname)
	b.Add("peter", Given)
	b.Add("peters", Surname)
	b.Add("glas", Surname)
	b.Add("europa", Given)
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"AfterNoun", "die Mitteilung Luthers bezieht", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"OtherStem", "die Erklärung Chamberlains gegenüber", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"CommonStem", "die Arbeit Bauers war", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"KnownWord", "die Mitteilung Peters", []uint8{O, O, O}, []uint8{O, O, O}},
		{"AfterArticle", "trotz des Luthers", []uint8{O, O, O}, []uint8{O, O, O}},
		{"ArticleAtLineStart", "er sagte\nEines Luthers", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"AfterAdjective", "des Geheimen Luthers", []uint8{O, O, O}, []uint8{O, O, O}},
		{"AfterName", "the Bowling Green Falcons team", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"SentenceStart", "It ended. Three Falcons came", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"LowerCaseBefore", "nahm Luthers Bericht", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Comma", "die Mitteilung, Luthers", []uint8{O, O, O}, []uint8{O, O, O}},
		{"DoubleS", "die Zeit Glass", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Continent", "die Zukunft Europas", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Tagged", "die Zeit Luthers", []uint8{O, O, B}, []uint8{O, O, B}},
	})
}

func TestMarkPolishCases(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("krzysztof", Given)
	b.Add("nowak", Surname)
	b.Add("kasia", Given)
	b.Add("zosia", Given)
	b.Add("lewandowski", Surname)
	b.Add("kowalska", Surname)
	b.Add("stefan", Given)
	b.Add("ottom", Surname)
	b.Add("kot", Surname|Common)
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"Instrumental", "Rozmawiałem z Krzysztofem Nowakiem", []uint8{O, O, O, O}, []uint8{O, O, B, I}},
		{"FeminineInstrumental", "rozmawiałem z Kasią wczoraj", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"Genitive", "prezent dla Zosi już jest", []uint8{O, O, O, O, O}, []uint8{O, O, B, O, O}},
		{"NoPolishLetter", "prezent dla Zosi jest", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"AdjectivalSurname", "zapytaj Lewandowskiego, płacił", []uint8{O, O, O}, []uint8{O, B, O}},
		{"FeminineSurname", "u pani Kowalskiej, dziękuję", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"Street", "na ul. Stefana 28, dziękuję", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"NotPolishText", "the Ottoman empire", []uint8{O, O, O}, []uint8{O, O, O}},
		{"CommonBase", "z Kotem, dziękuję", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Lowercase", "z kasią, dziękuję", []uint8{O, O, O}, []uint8{O, O, O}},
	})
}

func TestMarkCivil(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("heeren", Surname|Common)
	checkRule(t, b.Build(), addPeople, []labelCase{
		{"Widow", "OVERLEDENS. J. Heeren wed. van", []uint8{O, O, O, O, O}, []uint8{O, B, I, O, O}},
		{"Housewife", "A. W. van Eindhoven huisvr. van", []uint8{O, O, O, O, O, O}, []uint8{B, I, I, I, O, O}},
		{"MaidenName", "W. Geboers geb. Beerens, d.", []uint8{O, O, O, O, O}, []uint8{B, I, I, I, O}},
		{"MaidenNameAfterTagged", "Anna Müller geb. Schmidt kam", []uint8{B, I, O, O, O}, []uint8{B, I, I, I, O}},
		{"Nee", "Marie Curie née Skłodowska won", []uint8{B, I, O, O, O}, []uint8{B, I, I, I, O}},
		{"RoleWordSurname", "A. W. Dokter jd., oud", []uint8{O, O, O, O, O}, []uint8{B, I, I, O, O}},
		{"NoFullStop", "J. Heeren wed van", []uint8{O, O, O, O}, []uint8{O, O, O, O}},
		{"NoInitial", "Heeren wed. van", []uint8{O, O, O}, []uint8{O, O, O}},
		{"LowerCaseAfterGeb", "Anna Müller geb. am Montag", []uint8{B, I, O, O, O}, []uint8{B, I, O, O, O}},
	})
}
