package names

import "testing"

func TestDropNonPeople(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		// Titles.
		{"PrincessRoyal", "The Princess Royal arrived", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"PrinceRegent", "the Prince Regent spoke", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"PrincessName", "Princess Anne arrived", []uint8{B, I, O}, []uint8{B, I, O}},
		{"RoyalAlone", "Royal Robbins climbed", []uint8{B, I, O}, []uint8{B, I, O}},
		// Ships in military addresses.
		{"ShipPrefixOutside", "USNS Bergman FPO AP", []uint8{O, B, O, O}, []uint8{O, O, O, O}},
		{"ShipPrefixInside", "is USS Lorenzen", []uint8{O, B, I}, []uint8{O, O, O}},
		{"ShipPrefixLowerCase", "we uss Lorenzen", []uint8{O, O, B}, []uint8{O, O, B}},
		// Street corners.
		{"Corner", "the corner of Main Street and Elisabeth Parks", []uint8{O, O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, O, O, O}},
		{"CornerGerman", "an der Ecke Hauptstraße und Anna Weg", []uint8{O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, O, O}},
		{"CornerAfterHouseNumber", "corner of Csabai kapu 39. and Mathias Pass", []uint8{O, O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, O, O, O}},
		{"CornerNextSentence", "the corner of Main Street. Anna Weber came", []uint8{O, O, O, O, O, B, I, O}, []uint8{O, O, O, O, O, B, I, O}},
		{"CornerNextLine", "the corner of Main Street\nAnna Weber", []uint8{O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, B, I}},
		{"CornerComma", "approaching the crossing , and that Tower Man George Hauser", []uint8{O, O, O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, O, O, B, I}},
		{"CornerFarAway", "the corner of the big old market where we met yesterday with Anna", []uint8{O, O, O, O, O, O, O, O, O, O, O, O, B}, []uint8{O, O, O, O, O, O, O, O, O, O, O, O, B}},
		// Firm words after a name.
		{"FirmWord", "Wolfram Research is", []uint8{B, O, O}, []uint8{O, O, O}},
		{"FirmWordAfterTwo", "Nera Economic Consulting is", []uint8{B, O, O, O}, []uint8{O, O, O, O}},
		{"FirmWordInside", "by Hale LLP", []uint8{O, B, I}, []uint8{O, O, O}},
		{"FirmWordTooFar", "Anna Big Old Red Group", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		{"FirmWordLowerCase", "Anna research", []uint8{B, O}, []uint8{B, O}},
		{"FirmWordAfterComma", "Anna Weber, University of Ghent", []uint8{B, I, O, O, O}, []uint8{B, I, O, O, O}},
		{"FirmList", "The Davis, Reynolds and Williamson Orchestra", []uint8{O, B, B, O, B, O}, []uint8{O, O, O, O, O, O}},
		{"FirmListTwoWordItem", "Anna Weber, Reynolds and Williamson Orchestra", []uint8{B, I, B, O, B, O}, []uint8{B, I, B, O, O, O}},
		{"AndSons", "Thomas and Sons", []uint8{B, O, O}, []uint8{O, O, O}},
		{"EtFils", "Dupont et Fils", []uint8{B, O, O}, []uint8{O, O, O}},
		{"AmpersandCo", "Hale & Co", []uint8{B, O}, []uint8{O, O}},
		{"AndFriend", "Thomas and Peter", []uint8{B, O, B}, []uint8{B, O, B}},
		{"SurnameChurch", "Charlotte Church sang", []uint8{B, I, O}, []uint8{B, I, O}},
		{"FirmEverywhere", "Eberhard Faber GmbH was founded. Eberhard Faber makes pencils", []uint8{B, I, O, O, O, B, I, O, O}, []uint8{O, O, O, O, O, O, O, O, O}},
		{"FirmNotOtherNames", "Faber GmbH was founded. Eberhard Faber makes pencils", []uint8{B, O, O, O, B, I, O, O}, []uint8{O, O, O, O, B, I, O, O}},
		{"CornerOnlyThere", "the corner of Main Street and Anna Weber. Anna Weber came", []uint8{O, O, O, O, O, O, B, I, B, I, O}, []uint8{O, O, O, O, O, O, O, O, B, I, O}},
		// Voice assistants and car makers, kept out of the tagger's lexicon.
		{"VoiceAssistant", "Siri did not understand", []uint8{B, O, O, O}, []uint8{O, O, O, O}},
		{"VoiceAssistantGreeted", "Hi Alexa, thanks", []uint8{O, B, O}, []uint8{O, B, O}},
		{"VoiceAssistantSurname", "Siri Andersen called", []uint8{B, I, O}, []uint8{B, I, O}},
		{"CarMaker", "My Nissan broke down", []uint8{O, B, O, O}, []uint8{O, O, O, O}},
		{"ModelOfCarMaker", "drives a Nissan Micra", []uint8{O, O, O, B}, []uint8{O, O, O, O}},
		{"ModelOfOtherWord", "drives a blue Micra", []uint8{O, O, O, B}, []uint8{O, O, O, B}},
		// Buildings, institutions and trophies named after people.
		{"HallAfterWord", "at Carnegie Hall .", []uint8{O, O, B}, []uint8{O, O, O}},
		{"HouseAfterThe", "The Alfred Phillips House is", []uint8{O, B, I, I, O}, []uint8{O, O, O, O, O}},
		{"CupAfterThe", "won the Stanley Cup", []uint8{O, O, B, I}, []uint8{O, O, O, O}},
		{"LibraryAfterTwo", "the Paxton Carnegie Public Library", []uint8{O, B, O, O, O}, []uint8{O, O, O, O, O}},
		{"HallPerson", "host Monty Hall said", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"HouseAfterTitle", "Dr. Gregory House said", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"HouseAfterTitleWord", "Doctor House said", []uint8{O, B, O}, []uint8{O, B, O}},
		{"ParkSentenceStart", "Park and Mann were", []uint8{B, O, B, O}, []uint8{B, O, B, O}},
		{"County", "to Fairfax County .", []uint8{O, B, O}, []uint8{O, O, O}},
		{"CountyInName", "provided by Fairfax County , Virginia", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"CountyEverywhere", "The Fairfax Connector . by Fairfax County", []uint8{O, B, O, O, O, O}, []uint8{O, O, O, O, O, O}},
		{"CountyFullNameStays", "Kamala Harris visited Harris County", []uint8{B, I, O, O, O}, []uint8{B, I, O, O, O}},
		{"StreetNotEverywhere", "Anna Road . Anna said", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"CityInName", "the city of Gibson City .", []uint8{O, O, O, B, I}, []uint8{O, O, O, O, O}},
		{"DockAfter", "connected to Salisbury Dock to", []uint8{O, O, B, O, O}, []uint8{O, O, O, O, O}},
		{"LakeHead", "the Niger River and Lake Chad", []uint8{O, O, O, O, B, I}, []uint8{O, O, O, O, O, O}},
		{"LakeSurname", "Ricki Lake hosted", []uint8{B, I, O}, []uint8{B, I, O}},
		{"CompassHead", "played with North Melbourne in", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"CompassHeadRunOn", "of North Melbourne player Michael Gaudion .", []uint8{O, B, I, I, I, I}, []uint8{O, B, I, I, I, I}},
		{"CompassSurname", "Kanye West sang", []uint8{B, I, O}, []uint8{B, I, O}},
		{"LakeAlone", "Lake said", []uint8{B, O}, []uint8{B, O}},
		{"BandEverywhere", "the band Gigi . Gigi played", []uint8{O, O, B, B, O}, []uint8{O, O, O, O, O}},
		{"BandApposition", "his band , Gigi , was", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"SongTwoWords", "the song Gloomy Sunday", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"SongRelativeClause", "the song Maria wrote", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"PlaceTeam", "the Montreal Victorias defeated", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"PlaceTeamEverywhere", "the Montreal Victorias won . The Victorias", []uint8{O, O, B, O, O, B}, []uint8{O, O, O, O, O, O}},
		{"PlaceAfterPreposition", "In London Anna met", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"PlaceTagged", "Kenya Barris wrote", []uint8{B, I, O}, []uint8{B, I, O}},
		{"ShortCaps", "winning them all by KO .", []uint8{O, O, O, O, B}, []uint8{O, O, O, O, O}},
		{"ShortCapsShouting", "CALL KO NOW", []uint8{O, B, O}, []uint8{O, B, O}},
		{"ShortCapsAfterTitle", "ask Mr KO today", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"ShortCapsLongerName", "ask KO Min-jun today", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"Laureates", "Seven Nobel laureates . Nobel himself", []uint8{O, B, O, B, O}, []uint8{O, O, O, O, O}},
		{"PrizeCapitalised", "Anna Prize", []uint8{B, O}, []uint8{O, O}},
		{"TeamLeader", "the team Maria . ", []uint8{O, O, B}, []uint8{O, O, B}},
		{"TownUntagged", "in Hayward , California . The City Of Hayward opened", []uint8{O, O, O, O, O, O, B, O}, []uint8{O, O, O, O, O, O, O, O}},
		// Towns before a region.
		{"TownState", "a mall in Cary , North Carolina . Cary Towne Center", []uint8{O, O, O, B, O, O, B, O, O}, []uint8{O, O, O, O, O, O, O, O, O}},
		{"TownStateOneWord", "in Hayward, California", []uint8{O, B, O}, []uint8{O, O, O}},
		{"PersonCountry", "Usain Bolt, Jamaica", []uint8{B, I, O}, []uint8{B, I, O}},
		{"TwoWordNameState", "Anna Weber, Ohio", []uint8{B, I, O}, []uint8{B, I, O}},
		{"StateNoComma", "Cary Ohio", []uint8{B, O}, []uint8{B, O}},
		{"StateAfterTown", "in Cary , North Carolina", []uint8{O, O, B, I}, []uint8{O, O, O, O}},
		{"OneWordStateAfterTown", "of Paxton , Illinois .", []uint8{O, B, B}, []uint8{O, O, O}},
		{"NotRegion", "Cary, North Pole", []uint8{B, O, O}, []uint8{B, O, O}},
		{"WasFounded", "Caloi was founded in 1898 . Caloi makes bikes", []uint8{B, O, O, O, O, B, O, O}, []uint8{O, O, O, O, O, O, O, O}},
		{"WasOriginallyFounded", "Acme was originally founded", []uint8{B, O, O, O}, []uint8{O, O, O, O}},
		{"HasBeenIncorporated", "Acme has been incorporated", []uint8{B, O, O, O}, []uint8{O, O, O, O}},
		{"PersonListed", "Anna is listed as the contact", []uint8{B, O, O, O, O, O}, []uint8{B, O, O, O, O, O}},
		{"PlayerAcquired", "Smith was acquired by the Yankees", []uint8{B, O, O, O, O, O}, []uint8{B, O, O, O, O, O}},
		{"GermanGegruendet", "Siemens wurde 1847 gegründet", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
		{"PersonFounded", "Anna founded the company", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
		{"PersonWasBorn", "Anna was born in 1898", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		// "is a … company".
		{"Company", "Hoffmann is a German multinational company", []uint8{B, O, O, O, O, O}, []uint8{O, O, O, O, O, O}},
		{"AgencyBasedIn", "Russell is a design agency based in Leeds", []uint8{B, O, O, O, O, O, O, O}, []uint8{O, O, O, O, O, O, O, O}},
		{"Teacher", "Becker is a very good teacher", []uint8{B, O, O, O, O, O}, []uint8{B, O, O, O, O, O}},
		{"SchoolTeacher", "Becker is a bank clerk", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		{"MagazineAfter", "run Movement Bodyboarding Magazine .", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"RailwayAfterTwo", "the Basingstoke and Alton Light Railway until", []uint8{O, O, O, B, O, O, O}, []uint8{O, O, O, O, O, O, O}},
		{"Chain", "Bilka is a Danish chain of hypermarkets", []uint8{B, O, O, O, O, O, O}, []uint8{O, O, O, O, O, O, O}},
		{"TeamPlayer", "Anna is a team player", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		{"MemberOfBand", "Becker is a member of the company", []uint8{B, O, O, O, O, O, O}, []uint8{B, O, O, O, O, O, O}},
		{"French", "Dupont est une entreprise familiale", []uint8{B, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"ItalianElided", "Bianchi è un'azienda di Milano", []uint8{B, O, O, O, O}, []uint8{O, O, O, O, O}},
		// Lists that are one firm.
		{"FirmListSingularVerb", "Lopez, Santos and Coleman is a design agency", []uint8{B, B, O, B, O, O, O, O}, []uint8{O, O, O, O, O, O, O, O}},
		{"FirmListFirmWord", "The Clark, Romero and Hall Orchestra", []uint8{O, O, B, O, O, O}, []uint8{O, O, O, O, O, O}},
		{"CornerAbbreviation", "corner of ul. Cicha 86 and Leokadia Trail", []uint8{O, O, O, O, O, O, B, I}, []uint8{O, O, O, O, O, O, O, O}},
		{"PeopleListPluralVerb", "Lopez, Santos and Coleman were arrested", []uint8{B, B, O, B, O, O}, []uint8{B, B, O, B, O, O}},
		{"TwoItems", "Lopez and Coleman is", []uint8{B, O, B, O}, []uint8{B, O, B, O}},
		{"FirmListInBlock", "Peter Novak\nMarshall, Hernandez and Simpson\n12 Baker Street", []uint8{B, I, B, B, O, B, O, O, O}, []uint8{B, I, O, O, O, O, O, O, O}},
		{"FirmListLowerCase", "naomi ryan\nhubbard, fox and gillespie\n3747 fourth avenue", []uint8{B, I, B, O, O, O, O, O, O}, []uint8{B, I, O, O, O, O, O, O, O}},
		{"FamilySignature", "Love,\nAnna, Ben and Carla", []uint8{O, B, B, O, B}, []uint8{O, B, B, O, B}},
		{"AttendeesLine", "Attendees:\nAnna, Ben and Carla\nAgenda", []uint8{O, B, B, O, B, O}, []uint8{O, B, B, O, B, O}},
		{"FirmLineBeforeStreet", "Sewer cleaner\nHubbard, Fox and Gillespie\n3747 Fourth Avenue", []uint8{O, O, B, O, O, O, O, O, O}, []uint8{O, O, O, O, O, O, O, O, O}},
		{"ListFirstLine", "Anna, Ben and Carla\nare coming", []uint8{B, B, O, B, O, O}, []uint8{B, B, O, B, O, O}},
		{"ListLastLine", "Our team:\nAnna, Ben and Carla", []uint8{O, O, B, B, O, B}, []uint8{O, O, B, B, O, B}},
		{"ListWithFullName", "Peter\nAnna Weber, Ben and Carla\nx", []uint8{B, B, I, B, O, B, O}, []uint8{B, B, I, B, O, B, O}},
	})
}

func TestDropNonPeopleGivenRegion(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("victoria", Given)
	b.Add("paris", Given)
	b.Add("ana", Given)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"PlaceGivenName", "Paris Hilton said", []uint8{O, B, O}, []uint8{O, B, O}},
		{"ShortCapsGiven", "ask ANA today", []uint8{O, B, O}, []uint8{O, B, O}},
		{"StateAfterName", "Anna, Victoria and Ben", []uint8{B, B, O, B}, []uint8{B, B, O, B}},
		{"StateAfterTown", "Geelong, Victoria .", []uint8{B, O}, []uint8{O, O}},
		{"GivenStateNotTaken", "Geelong, Victoria .", []uint8{O, B}, []uint8{O, B}},
	})
}

func TestDropNonPeopleAfterCommonCapital(t *testing.T) {
	b := NewGazetteerBuilder()
	for _, w := range []string{"classic", "garage", "familie", "happy", "birthday", "yesterday", "vetter", "police", "old", "reichskanzler", "sein", "lieber"} {
		b.Add(w, Common)
	}
	b.Add("anna", Given)
	b.Add("old", Common|Surname)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"TitleCasePhrase", "Connecticut Classic Lotto is a game", []uint8{O, O, B, O, O, O}, []uint8{O, O, O, O, O, O}},
		{"Everywhere", "the Connecticut Classic Lotto . Lotto winners", []uint8{O, O, O, B, B, O}, []uint8{O, O, O, O, O, O}},
		{"MidSentence", "they loved the Garage Rock of the sixties", []uint8{O, O, O, O, B, O, O, O}, []uint8{O, O, O, O, O, O, O, O}},
		{"SentenceStart", "We met. Yesterday Weber called", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"TextStart", "Police Weber said", []uint8{O, B, O}, []uint8{O, B, O}},
		{"GivenNameKept", "and a Happy Birthday Anna", []uint8{O, O, O, O, B}, []uint8{O, O, O, O, B}},
		{"GermanArticle", "wobei die Familie Wechinger nach Amerika", []uint8{O, O, O, B, O, O}, []uint8{O, O, O, B, O, O}},
		{"KinNoun", "sein lieber Vetter Huber kam", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"NameBefore", "met the Old Weber today", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"TwoWordName", "the Classic Anna Weber show", []uint8{O, O, B, I, O}, []uint8{O, O, B, I, O}},
		{"Office", "dass Reichskanzler Marx sprach", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
	})
}

func TestDropNonPeopleFestive(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Holiday", "Feliz Navidad y", []uint8{B, I, O}, []uint8{O, O, O}},
		{"AfterFestiveWord", "Joyeux Noël et", []uint8{O, B, O}, []uint8{O, O, O}},
		{"NewYear", "e felice Anno Nuovo !", []uint8{O, B, I, I}, []uint8{O, O, O, O}},
		{"NewYearReversed", "szczęśliwego Nowego Roku", []uint8{O, B, I}, []uint8{O, O, O}},
		{"FestiveAlone", "Feliz cumpleaños María", []uint8{B, O, B}, []uint8{O, O, B}},
		{"NameAfterHoliday", "Merry Christmas Anna !", []uint8{O, B, I}, []uint8{O, O, B}},
		{"NewAlone", "I met Natalia Novo", []uint8{O, O, B, I}, []uint8{O, O, B, I}},
		{"GuterRutsch", "einen guten Rutsch !", []uint8{O, O, B}, []uint8{O, O, O}},
	})
}

func TestDropNonPeopleChatWords(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("bene", Surname)
	b.Add("sarah", Given)
	b.Add("mama", Given)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"Family", "Hallo Mama , ich komme", []uint8{O, B, O, O}, []uint8{O, O, O, O}},
		{"FamilyInLongerName", "met Mama Cass", []uint8{O, B, I}, []uint8{O, B, I}},
		{"LoneLowerSurname", "Ciao Nonna , ti voglio bene .", []uint8{O, O, O, O, B}, []uint8{O, O, O, O, O}},
		{"LowerCaseText", "ti voglio bene", []uint8{O, O, B}, []uint8{O, O, B}},
		{"LowerGivenName", "Hi, tell sarah I said hi", []uint8{O, O, B, O, O, O}, []uint8{O, O, B, O, O, O}},
		{"AfterTitle", "Call Mr bene Now", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"AfterPossessive", "Jack lost his jack .", []uint8{B, O, O, B}, []uint8{B, O, O, O}},
		{"AfterArticle", "fala com o joão amanhã", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"ItsInChat", "hey its tomasz kowalski from", []uint8{O, O, B, I, O}, []uint8{O, O, B, I, O}},
		{"CapitalAfterPossessive", "I met his Anna", []uint8{O, O, O, B}, []uint8{O, O, O, B}},
		{"Handle", "Reset it for Kim as anna.bene today", []uint8{O, O, O, O, O, O, B, O}, []uint8{O, O, O, O, O, O, B, O}},
	})
}

func TestDropNonPeopleBuildings(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Inside", "aus Villa Catarina , Alois", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"Before", "im Gasthaus Engl wohnt", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"Hotel", "at Hotel Adlon tonight", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"Alone", "the Villa is", []uint8{O, B, O}, []uint8{O, B, O}},
		{"SurnameVilla", "I met Ana Villa today", []uint8{O, O, B, I, O}, []uint8{O, O, B, I, O}},
		{"LowerCaseHead", "la villa Anna", []uint8{O, O, B}, []uint8{O, O, B}},
		{"CommaBetween", "at the Hotel , Anna said", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
	})
}

func TestDropNonPeopleOrdinaryWords(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("serena", Given|Surname)
	b.Add("otto", Given|Surname)
	b.Add("le", Given|Surname|Common)
	b.Add("rossi", Surname)
	b.Add("ciao", Common)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"Adjective", "la giornata è serena e", []uint8{O, O, O, B, O}, []uint8{O, O, O, O, O}},
		{"Number", "sono le otto , dove", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"NumberAfterIAmKept", "sono otto anni", []uint8{O, B, O}, []uint8{O, B, O}},
		{"CommonNameInside", "Ho otto anni", []uint8{B, I, I}, []uint8{O, O, O}},
		{"Capitalised", "la giornata è Serena e", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"WithSurname", "con serena rossi ieri", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"AfterGreeting", "ciao serena , come", []uint8{O, B, O}, []uint8{O, B, O}},
		{"AfterIAm", "sono serena , la", []uint8{O, B, O}, []uint8{O, B, O}},
		{"OtherName", "ho visto giulia ieri", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
	})
}

func TestDropNonPeopleEvents(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Inside", "Hurricane Katrina struck", []uint8{B, I, O}, []uint8{O, O, O}},
		{"Before", "Operation Barbarossa began", []uint8{O, B, O}, []uint8{O, O, O}},
		{"LowerCaseHead", "el huracán Irma llegó", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"Elided", "L'ouragan Irma a", []uint8{O, B, O}, []uint8{O, O, O}},
		{"GermanWeather", "Tief Bernd bringt", []uint8{O, B, O}, []uint8{O, O, O}},
		{"HeadAlone", "the Hurricane was", []uint8{O, B, O}, []uint8{O, B, O}},
		{"CommaBetween", "the storm , Katrina said", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"Person", "tell Katrina that", []uint8{O, B, O}, []uint8{O, B, O}},
	})
}

func TestDropNonPeopleEponyms(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Disease", "with Parkinson's disease in", []uint8{O, B, O, O}, []uint8{O, O, O, O}},
		{"PossessiveOnly", "Parkinson's disease . Parkinson said", []uint8{B, O, B, O}, []uint8{O, O, B, O}},
		{"Law", "by Murphy's law", []uint8{O, B, O}, []uint8{O, O, O}},
		{"Doctrine", "the Monroe Doctrine opposed", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"Plan", "the Marshall Plan helped", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"Chapel", "The Sistine Chapel ceiling", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"Project", "The Alan Parsons Project released", []uint8{O, B, I, O, O}, []uint8{O, O, O, O, O}},
		{"Person", "Parkinson said", []uint8{B, O}, []uint8{B, O}},
		{"CapitalisedNoun", "Parkinson's Disease was", []uint8{B, O, O}, []uint8{B, O, O}},
	})
}

func TestDropNonPeopleNounsAndRoles(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("anna", Given)
	b.Add("oliver", Given)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"GermanNoun", "Meine Karte wurde", []uint8{O, B, O}, []uint8{O, O, O}},
		{"GermanNounDative", "mit meinem Paket", []uint8{O, O, B}, []uint8{O, O, O}},
		{"KnownName", "Meine Anna kommt", []uint8{O, B, O}, []uint8{O, B, O}},
		{"EnglishPossessive", "my Karte", []uint8{O, B}, []uint8{O, B}},
		{"RoleLabel", "Reviewer: please check", []uint8{B, O, O}, []uint8{O, O, O}},
		{"RoleLabelNextLine", "ok\nApprover: yes", []uint8{O, B, O}, []uint8{O, O, O}},
		{"KnownSpeaker", "Oliver: please check", []uint8{B, O, O}, []uint8{B, O, O}},
		{"RoleMidLine", "ask Reviewer: now", []uint8{O, B, O}, []uint8{O, B, O}},
		{"OtherEnding", "Xiadani: hola", []uint8{B, O}, []uint8{B, O}},
	})
}

func TestDropNonPeopleCitiesAndModels(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"SecondWord", "moved to Los Angeles in", []uint8{O, O, O, B, O}, []uint8{O, O, O, O, O}},
		{"TeamAfterCity", "the San Francisco Giants won", []uint8{O, O, O, B, O}, []uint8{O, O, O, O, O}},
		{"Abbreviation", "the St. Louis Cardinals won", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"Elsewhere", "in Los Angeles . Angeles said", []uint8{O, O, B, B, O}, []uint8{O, O, O, O, O}},
		{"ModelOfBrand", "a Ford Mustang and", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"BrandInName", "ask Harrison Ford now", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"Person", "ask Angeles Garcia now", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"CityThenComma", "in San Francisco , Anna said", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
	})
}

func TestDropNonPeopleHonorifics(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"RoyalHighness", "aan Z. K. H. den Prins van", []uint8{O, B, I, I, I, I, O}, []uint8{O, O, O, O, O, O, O}},
		{"Majesty", "Z. M. de Koning beeft", []uint8{B, I, I, I, O}, []uint8{O, O, O, O, O}},
		{"HolySee", "van den H. Stoel is", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"HolyFather", "de H. Vader zegen", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"InitialAndSurname", "de H. Janssen zegt", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"TitleAndName", "Z. K. H. Prins Willem", []uint8{B, I, I, I, I}, []uint8{B, I, I, I, I}},
		{"TitleWithoutInitial", "de Prins kwam", []uint8{O, B, O}, []uint8{O, B, O}},
	})
}

func TestDropNonPeopleStreets(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Rue", "au 14 rue Victor Hugo , 75016", []uint8{O, O, O, B, I, O}, []uint8{O, O, O, O, O, O}},
		{"Via", "in via Giuseppe Garibaldi 5", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"Capitalised", "Avenida Paulista 1000", []uint8{O, B, O}, []uint8{O, O, O}},
		{"Comma", "la rue, Victor Hugo dit", []uint8{O, O, B, I, O}, []uint8{O, O, B, I, O}},
		{"EnglishVia", "sent via Anna today", []uint8{O, O, B, O}, []uint8{O, O, B, O}},
		{"Person", "with Victor Hugo today", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
	})
}

func TestDropNonPeopleEverydayWords(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("caja", Given)
	b.Add("nella", Given)
	b.Add("maria", Given)
	b.Add("oerle", Surname)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"OneWord", "Lo puse en una caja grande", []uint8{O, O, O, O, B, O}, []uint8{O, O, O, O, O, O}},
		{"SeveralWords", "Anche nella seconda serata il pubblico", []uint8{O, B, I, I, O, O}, []uint8{O, O, O, O, O, O}},
		{"TextInLowerCase", "lo puse en una caja grande", []uint8{O, O, O, O, B, O}, []uint8{O, O, O, O, B, O}},
		{"Capitalised", "Lo puse en Caja Madrid", []uint8{O, O, O, B, I}, []uint8{O, O, O, B, I}},
		{"WithAName", "Ho visto nella maria ieri", []uint8{O, O, B, I, O}, []uint8{O, O, B, I, O}},
		{"ParticleOnly", "Ik zag van oerle", []uint8{O, O, B, I}, []uint8{O, O, B, I}},
		{"ParticleAndUnknownWord", "Ik zag van oerbeek", []uint8{O, O, B, I}, []uint8{O, O, B, I}},
		{"AfterTitle", "Chiama il signor caja domani", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
		{"AfterIAm", "Hola, soy caja", []uint8{O, O, B}, []uint8{O, O, B}},
		{"InHandle", "Escribe a ana.caja hoy", []uint8{O, O, O, B, O}, []uint8{O, O, O, B, O}},
	})
}

func TestEverydayList(t *testing.T) {
	for _, w := range []string{"caja", "bene", "nella", "tempo"} {
		if !everyday[fnv(w)] {
			t.Errorf("%q is not in everyday.txt", w)
		}
	}
	for _, w := range []string{"sam", "kim", "ben", "#"} {
		if everyday[fnv(w)] {
			t.Errorf("%q is in everyday.txt", w)
		}
	}
}
