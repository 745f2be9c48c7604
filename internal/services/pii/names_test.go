package pii

import "testing"

// TestName covers what the name tagger is for (chat and e-mail in the supported languages,
// titles, cue phrases, signatures, particles, hyphens, lower-case chat names, romanised Asian
// names) and what it must leave alone (months, weekdays, places, organisations, products,
// numbers, codes, log lines). The tagger is statistical; these are the behaviours it was built
// for, not its accuracy, which scripts/eval/pii measures on held-out data.
func TestName(t *testing.T) {
	runCases(t, TypeName, []recognizerCase{
		{"MyNameIs", "Hello, my name is Rahul Sharma and I need help.", []string{"Rahul Sharma"}},
		{"Title", "Please ask Dr. Ada Lovelace to call back.", []string{"Ada Lovelace"}},
		{"TitleSurname", "Ms Jones called about the invoice.", []string{"Jones"}},
		{"Signature", "Thanks for your help.\n\nKind regards,\nSophie Martin", []string{"Sophie Martin"}},
		{"FormLabel", "Name: Zbigniew Nowak\nCity: Gdańsk", []string{"Zbigniew Nowak"}},
		{"Particle", "Ik heb met Sanne de Vries gesproken.", []string{"Sanne de Vries"}},
		{"Apostrophe", "Our driver Liam O'Brien will arrive at noon.", []string{"Liam O'Brien"}},
		{"SpanishDoubleSurname", "Hola, soy Lucía Fernández García, de Madrid.", []string{"Lucía Fernández García"}},
		{"German", "Sehr geehrte Frau Müller, vielen Dank für Ihre Nachricht.", []string{"Müller"}},
		{"French", "Bonjour, je m'appelle Camille Dubois et j'habite à Lyon.", []string{"Camille Dubois"}},
		{"Italian", "Gentile Dott. Marco Rossi, la contatto per l'ordine.", []string{"Marco Rossi"}},
		{"Portuguese", "Olá, o meu nome é João Pereira.", []string{"João Pereira"}},
		{"Polish", "Dzień dobry, nazywam się Katarzyna Wiśniewska.", []string{"Katarzyna Wiśniewska"}},
		{"Vietnamese", "Please welcome Nguyễn Văn An to the team!", []string{"Nguyễn Văn An"}},
		{"KoreanHyphenated", "I met Ji-woo Park at the conference.", []string{"Ji-woo Park"}},
		{"LowerCaseChat", "hey it's maria garcia, can you call me back?", []string{"maria garcia"}},
		{"Possessive", "I borrowed Alice Goldberg's book.", []string{"Alice Goldberg"}},
		{"SingleNameSubject", "Kevin called yesterday about the invoice.", []string{"Kevin"}},
		{"Placeholder", "Please send it to John Doe.", []string{"John Doe"}},
		{"GermanDative", "Bitte leiten Sie das an Herrn Müller weiter.", []string{"Müller"}},
		{"DutchTitleParticle", "Gisteren sprak de heer van Zuylen in de Kamer.", []string{"van Zuylen"}},
		{"SurnameSubject", "Becker is a very careful accountant.", []string{"Becker"}},
		{"GermanSurnameSubject", "Schneider ist eine sehr gute Ärztin.", []string{"Schneider"}},
		{"FrenchSurnameSubject", "Moreau est un voisin très serviable.", []string{"Moreau"}},
		{"GivenNamePossessive", "Here is Anna's new address.", []string{"Anna"}},
		{"QuoteAttribution", "\"The delivery will be late,\" says Johnson.", []string{"Johnson"}},
		{"LowerCaseBeforePronoun", "tell sarah i said hi", []string{"sarah"}},
		{"LowerCaseBeforeWeekday", "fala com o joão amanhã", []string{"joão"}},
		{"LowerCaseChatSubject", "haha thomas you are hilarious", []string{"thomas"}},
		{"AddressTownAfterNumbers", "Please deliver to:\nTom Walsh\n77 Mill Road, Apt 3\nDouglas\nIsle of Man", []string{"Tom Walsh"}},
		{"UnknownNameInList", "Our guests were Zorblat, Hannah and Derek.", []string{"Zorblat", "Hannah", "Derek"}},
		{"PlaceSubject", "Lisbon is a lovely city in spring.", nil},
		{"ProductSubject", "Excel is a great tool for budgets.", nil},
		{"Months", "The meeting moved from March to May.", nil},
		{"TitleAlone", "Excuse me, Sir, is this seat free?", nil},
		{"God", "Oh my God, thank God it's Friday!", nil},
		{"Weekdays", "See you on Monday or Friday.", nil},
		{"Places", "I flew from Paris to Berlin via Amsterdam.", nil},
		{"Organisation", "I work for Siemens AG in Munich.", nil},
		{"Product", "My iPhone and the Windows laptop both crashed.", nil},
		{"SentenceStart", "Will you send the report? Thanks in advance.", nil},
		{"Numbers", "Order 58213 ships in 3 to 5 days, ref AB-1234.", nil},
		{"Codes", "Use code SUMMER2024 or XJ9-22K at checkout.", nil},
		{"LogLine", "2024-03-01 12:00:01 ERROR UserService failed for Maria Garcia", nil},
		{"LogLevelLine", "[WARN] Session expired for Thomas Becker", nil},
	})
}
