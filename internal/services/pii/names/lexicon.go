package names

// Class is a set of word classes from the hand-written lexicon below. The classes are features
// of the tagger (positive evidence such as titles and cue words before a name, negative
// evidence such as months, weekdays, places and organisations), and they keep function words
// out of the name gazetteer.
type Class uint16

// Word classes.
const (
	ClsMonth    Class = 1 << iota // January, Januar, janvier, enero, gennaio, januari, janeiro, styczeń...
	ClsWeekday                    // Monday, Montag, lundi...
	ClsTitle                      // Mr, Frau, Mme, Sr., Dott., dhr., pan...
	ClsParticle                   // van, von, de, da, del, bin...
	ClsCue                        // words right before a name: name, called, bin, appelle, llamo...
	ClsGreeting                   // hi, dear, hallo, bonjour, hola, ciao, beste, olá, cześć...
	ClsClosing                    // regards, thanks, cheers, Grüße, cordialement, saludos...
	ClsOrg                        // Inc, GmbH, Ltd, SA, University, Bank...
	ClsPlace                      // countries and large cities
	ClsStreet                     // Street, Straße, rue, calle, via, straat, rua, ulica...
	ClsFunction                   // function words of the supported languages
	ClsProduct                    // brands and products that look like names
	ClsRole                       // job titles and roles: manager, doctor, Kunde, client...
	ClsLogLevel                   // ERROR, WARN, INFO...
	ClsGeo                        // words that end names of places and buildings: Lake, Hills, Park...
)

// lexiconFiles are the lists (lists/NAME.txt) of the lexicon's classes.
var lexiconFiles = map[Class]string{
	ClsMonth: "month", ClsWeekday: "weekday", ClsTitle: "title", ClsParticle: "particle", ClsCue: "cue",
	ClsGreeting: "greeting", ClsClosing: "closing", ClsOrg: "org", ClsPlace: "place", ClsStreet: "street",
	ClsFunction: "function", ClsProduct: "product", ClsRole: "role", ClsLogLevel: "loglevel", ClsGeo: "geo",
}

// lexicon maps the FNV-1a hash of a lower-case word (tokInfo.lw) to its classes; built once
// and only read. Keyed by the hash the tokenizer already computed, a lookup hashes no string.
var lexicon = buildLexicon()

func buildLexicon() map[uint64]Class {
	m := map[uint64]Class{}
	for c, name := range lexiconFiles {
		for _, w := range listWords(name) {
			m[fnv(w)] |= c
		}
	}
	return m
}

// Lookup returns the lexicon classes of a lower-case word.
func Lookup(lower string) Class { return lexicon[fnv(lower)] }
