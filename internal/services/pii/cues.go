package pii

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// cue is a set of context-keyword kinds. A keyword near a number changes how it is judged:
// identifiers whose checksum alone would accept too many ordinary numbers (1 in 10 or 11) are
// reported only next to their keyword, a phone keyword lets a phone-shaped number pass without a
// national format libphonenumber knows, and a keyword for an order, invoice or tracking number
// keeps a number from being taken for a phone number.
type cue uint16

const (
	cuePhone        cue = 1 << iota // a phone keyword before the number: "Tel.", "call me at", "Handy"
	cuePhoneAfter                   // a phone label after the number: "416 60 039 office"
	cueNotPhone                     // an order, invoice, tracking, account, version... keyword
	cueStreet                       // a street word after a number: "975 3968 Bay Street"
	cueSSN                          // US social security number
	cueBSN                          // Dutch burgerservicenummer
	cueNIR                          // French numéro de sécurité sociale
	cueAadhaar                      // Indian Aadhaar
	cuePersonnummer                 // Swedish personnummer
	cuePESEL                        // Polish PESEL
	cueTaxIDDE                      // German Steuer-Identifikationsnummer
	cueNIFPT                        // Portuguese NIF
	numCues         = iota
)

// Windows, in bytes, within which a keyword counts: before the start of a value, and after its
// end.
const (
	phoneCueWindow = 40
	idCueWindow    = 48
	cueAfterWindow = 24
)

// cueWordsText lists keywords (lower case) by kind. Two-word keywords are written with an
// underscore and match the two words with one or two spaces between them.
var cueWordsText = map[cue]string{
	cuePhone: `phone phones telephone tel tele mobile mob cell cellphone fax call calling called ring
		reach reachable contact whatsapp sms text texts message messages answering hotline landline dial
		telefon telefonnummer handy handynummer mobil mobilnummer mobilfunk rufnummer festnetz anrufen
		ruf ruft erreichbar erreichen faxnummer durchwahl telefonisch
		téléphone tél portable fixe appeler appelez appelle rappeler joindre joignable ligne
		teléfono telefono móvil movil celular llamar llámame llamame llame llámeme contactar
		cellulare fisso chiamare chiamami chiami chiamatemi contattare contattarmi recapito
		telefoon telefoonnummer mobiel mobiele gsm bel bellen belt bereikbaar
		telefone telemóvel telemovel móvel ligar liga ligue contato contacto
		telefonu komórka komórkowy komórki kom zadzwoń zadzwon dzwonić dzwonic kontakt faks`,
	cuePhoneAfter: `office mobile fax home work cell desk landline mob tel phone`,
	cueNotPhone: `order orders invoice inv ref reference ticket tracking track case customer account acct
		policy version ver build serial model part sku item po receipt transaction booking reservation
		confirmation iban bic swift card visa mastercard amount total price zip postcode postal code pin
		otp password id isbn issn ean upc lot batch license licence licencia permis patente rijbewijs
		address addresses apt apartment suite unit floor box postbox located lives
		führerschein adresse anschrift wohnung dirección direccion domicilio indirizzo adres woning
		endereço endereco morada adresu
		bestellung bestellnummer auftrag auftragsnummer rechnung rechnungsnummer kundennummer kundennr
		vorgang vorgangsnummer sendung sendungsnummer referenz aktenzeichen vertrag vertragsnummer konto
		kontonummer betrag summe seriennummer artikel artikelnummer postleitzahl plz buchung
		buchungsnummer fall
		commande facture référence dossier suivi colis client contrat compte montant série réservation
		pedido factura referencia seguimiento envío envio cliente contrato cuenta importe versión serie
		artículo articulo reserva localizador expediente
		ordine fattura riferimento spedizione tracciamento contratto conto importo versione articolo
		prenotazione pratica
		bestelling bestelnummer factuur factuurnummer referentie zending klant klantnummer rekening
		bedrag versie serienummer reservering ordernummer kenmerk
		encomenda fatura referência rastreio rastreamento conta valor versão artigo processo
		zamówienie zamówienia zamowienie faktura faktury przesyłka przesyłki klient klienta umowa umowy
		konto kwota wersja seryjny rezerwacja sprawa sprawy paczka paczki`,
	cueStreet: `street st road rd avenue ave lane ln drive dr boulevard blvd way court ct place pl square
		close crescent terrace hill parkway highway pike row walk suite apt
		rue chemin allée allee impasse quai strasse straße str weg gasse platz allee ring damm ufer
		laan straat plein gracht kade calle avenida carrera paseo plaza rua travessa largo praça via viale
		piazza corso vicolo ulica ul aleja osiedle`,
	cueSSN:          `ssn ssns social_security soc_sec`,
	cueBSN:          `bsn burgerservicenummer sofinummer sofi-nummer sofi`,
	cueNIR:          `nir insee sécu secu vitale sécurité_sociale securite_sociale social_security`,
	cueAadhaar:      `aadhaar aadhar uidai आधार`,
	cuePersonnummer: `personnummer personnr person-nr pnr samordningsnummer`,
	cuePESEL:        `pesel`,
	cueTaxIDDE: `steuer-id steuerid steuer-idnr idnr steueridentifikationsnummer identifikationsnummer
		steuer-identifikationsnummer tin tax_id tax_identification`,
	cueNIFPT: `nif nipc contribuinte fiscal tin tax_id tax_identification`,
}

// cueWords and cueBigrams map a lower-case word (or "first second") to its keyword kinds;
// cueFirst and secondFirst prefilter lookups in them (bit f of entry n: some keyword, or second
// word of a two-word keyword, has n bytes and starts with byte f, folded to 32 values). They
// are built once and only read.
var cueWords, cueBigrams, cueFirst, secondFirst = buildCues()

func buildCues() (map[string]cue, map[string]cue, *[64]uint32, *[64]uint32) {
	words, bigrams := map[string]cue{}, map[string]cue{}
	var first, second [64]uint32
	for k, text := range cueWordsText {
		for _, w := range strings.Fields(text) {
			if a, b, ok := strings.Cut(w, "_"); ok {
				bigrams[a+" "+b] |= k
				second[len(b)&63] |= 1 << (b[0] & 31)
				continue
			}
			words[w] |= k
			first[len(w)&63] |= 1 << (w[0] & 31)
		}
	}
	return words, bigrams, &first, &second
}

// mayBe reports whether a word of lower-case bytes w can be in the set the prefilter p covers.
func mayBe(p *[64]uint32, w []byte) bool {
	return len(w) > 0 && len(w) < 64 && p[len(w)]&(1<<(w[0]&31)) != 0
}

// cueState remembers where the last keyword of each kind ended, as the scan goes.
type cueState struct {
	last    [numCues]int
	prev    []byte // the previous word, lower case
	prevEnd int
	key     []byte // scratch for bigram keys
}

const never = -1 << 30

func newCueState() cueState {
	var c cueState
	for i := range c.last {
		c.last[i] = never
	}
	c.prev = make([]byte, 0, 64)
	c.key = make([]byte, 0, 128)
	c.prevEnd = never
	return c
}

// word records the word text[start:end], whose lower-case form is lower.
func (c *cueState) word(lower []byte, start, end int, text string) {
	var k cue
	if mayBe(cueFirst, lower) {
		k = cueWords[string(lower)]
	}
	if c.prevEnd >= 0 && start-c.prevEnd <= 2 && mayBe(secondFirst, lower) && strings.Trim(text[c.prevEnd:start], " ") == "" {
		c.key = append(append(append(c.key[:0], c.prev...), ' '), lower...)
		k |= cueBigrams[string(c.key)]
	}
	for i := 0; k != 0; i, k = i+1, k>>1 {
		if k&1 != 0 {
			c.last[i] = end
		}
	}
	c.prev = append(c.prev[:0], lower...)
	c.prevEnd = end
}

// near reports whether a keyword of kind k ended within window bytes before start.
func (c *cueState) near(k cue, start, window int) bool {
	return c.last[bitIndex(k)] >= start-window
}

// phoneVerdict says what the nearest keyword before start makes of a phone-shaped number: +1 a
// phone keyword, -1 an order/invoice/... keyword, 0 none within the window.
func (c *cueState) phoneVerdict(start int) int {
	p, n := c.last[bitIndex(cuePhone)], c.last[bitIndex(cueNotPhone)]
	switch {
	case p < start-phoneCueWindow && n < start-phoneCueWindow:
		return 0
	case p > n:
		return 1
	default:
		return -1
	}
}

func bitIndex(k cue) int {
	i := 0
	for k > 1 {
		k >>= 1
		i++
	}
	return i
}

// cuesAfter returns the keyword kinds of the (at most two) words that start within
// cueAfterWindow bytes after end. A street word counts only with a capital.
func cuesAfter(text string, end int, buf []byte) cue {
	var k cue
	limit := min(end+cueAfterWindow, len(text))
	i := end
	for w := 0; w < 2; w++ {
		for i < limit && !startsLetter(text, i) {
			if c := text[i]; c == '\n' || isDigit(c) {
				return k
			}
			i++
		}
		if i >= limit {
			return k
		}
		buf = buf[:0]
		j := i
		first, _ := utf8.DecodeRuneInString(text[i:])
		for j < len(text) && j-i < 40 {
			r, n := utf8.DecodeRuneInString(text[j:])
			if !unicode.IsLetter(r) && !(r == '-' && startsLetter(text, j+n)) {
				break
			}
			buf = utf8.AppendRune(buf, unicode.ToLower(r))
			j += n
		}
		w := cueWords[string(buf)]
		if !unicode.IsUpper(first) {
			w &^= cueStreet // "975 Bay Street", but not "0160 1234567 ist weg"
		}
		k |= w
		i = j
	}
	return k
}
