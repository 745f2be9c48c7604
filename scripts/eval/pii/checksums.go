package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// The generated checksum set: for each locale and kind of value, valid values (right checksum,
// right length) written the way people write them, in a sentence of the locale's language with
// the keyword the value is usually given with, and the same sentence with a look-alike that is
// not a valid value (one digit changed, so the checksum fails; or an order number, date or
// version of the same shape). Values are drawn from a seeded generator, so the set is the same
// every run and none of it is hand-picked.

type genCase struct {
	locale, kind string
	typ          string // the entity type a valid value must be found as
	gen          func(r *rand.Rand) (valid, lookalike string)
	sentence     string // with %s for the value
}

// orderSentences hold the look-alikes of phone numbers: a phone-shaped number after a phone
// keyword is a phone number whatever its digits, so a phone look-alike is an order number of
// the same length in an order sentence.
var orderSentences = map[string]string{
	"de": "Bestellnummer %s", "fr": "Commande %s", "gb": "Order number %s", "es": "Pedido %s", "it": "Ordine n. %s",
	"nl": "Bestelnummer %s", "pt": "Encomenda %s", "pl": "Zamówienie %s", "us": "Order #%s",
}

func digits(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
	return string(b)
}

func luhnDigit(d string) byte {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		n := int(d[i] - '0')
		if (len(d)-1-i)%2 == 0 {
			n *= 2
			if n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return byte('0' + (10-sum%10)%10)
}

// bump changes the last digit of s, which breaks any check digit.
func bump(s string) string {
	i := strings.LastIndexAny(s, "0123456789")
	return s[:i] + string('0'+(s[i]-'0'+1)%10) + s[i+1:]
}

func card(prefix string, n int, groups bool) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		d := prefix + digits(r, n-len(prefix)-1)
		d += string(luhnDigit(d))
		if groups {
			var b strings.Builder
			for i := 0; i < len(d); i += 4 {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(d[i:min(i+4, len(d))])
			}
			d = b.String()
		}
		return d, bump(d)
	}
}

func ibanOf(cc, bban string) string {
	s := bban + cc + "00"
	rem := 0
	for _, c := range s {
		v := int(c - '0')
		if c >= 'A' {
			v = int(c-'A') + 10
			rem = (rem*100 + v) % 97
			continue
		}
		rem = (rem*10 + v) % 97
	}
	return fmt.Sprintf("%s%02d%s", cc, 98-rem, bban)
}

func iban(cc string, bban func(r *rand.Rand) string, grouped bool) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		v := ibanOf(cc, bban(r))
		if grouped {
			var b strings.Builder
			for i := 0; i < len(v); i += 4 {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(v[i:min(i+4, len(v))])
			}
			v = b.String()
		}
		return v, bump(v)
	}
}

// phone draws a number valid for libphonenumber in region, written in the national or the
// international format; the look-alike is an order number with the same digit count.
func phone(region string, typ phonenumbers.PhoneNumberType, intl bool) func(r *rand.Rand) (string, string) {
	ex := phonenumbers.GetExampleNumberForType(region, typ)
	return func(r *rand.Rand) (string, string) {
		nsn := phonenumbers.GetNationalSignificantNumber(ex)
		for range 100 {
			cand := nsn[:len(nsn)-4] + digits(r, 4)
			n, err := phonenumbers.Parse("+"+strconv.Itoa(int(ex.GetCountryCode()))+cand, "ZZ")
			if err != nil || !phonenumbers.IsValidNumberForRegion(n, region) {
				continue
			}
			f := phonenumbers.NATIONAL
			if intl {
				f = phonenumbers.INTERNATIONAL
			}
			return phonenumbers.Format(n, f), digits(r, len(cand))
		}
		panic("no valid number for " + region)
	}
}

func withCheck(body func(r *rand.Rand) string, check func(string) string, format func(string) string) func(r *rand.Rand) (string, string) {
	return func(r *rand.Rand) (string, string) {
		for {
			b := body(r)
			c := check(b)
			if c == "" {
				continue
			}
			v := format(b + c)
			return v, bump(v)
		}
	}
}

func plain(s string) string { return s }

func genCases() []genCase {
	mod11 := func(w []int) func(string) string {
		return func(b string) string {
			sum := 0
			for i, x := range w {
				sum += x * int(b[i]-'0')
			}
			c := 11 - sum%11
			if c == 10 {
				return ""
			}
			return strconv.Itoa(c % 11 % 10)
		}
	}
	return []genCase{
		{"us", "Visa", pii.TypeCard, card("4", 16, true), "Please charge my Visa %s for the order."},
		{"us", "Mastercard", pii.TypeCard, card("54", 16, false), "Mastercard number: %s"},
		{"us", "Amex", pii.TypeCard, card("37", 15, false), "My Amex is %s, thanks."},
		{"de", "Maestro", pii.TypeCard, card("6759", 16, true), "Meine Karte %s wurde gesperrt."},
		{"de", "IBAN", pii.TypeIBAN, iban("DE", func(r *rand.Rand) string { return digits(r, 18) }, true), "Bitte auf %s überweisen."},
		{"fr", "IBAN", pii.TypeIBAN, iban("FR", func(r *rand.Rand) string { return digits(r, 23) }, false), "Mon IBAN est %s."},
		{"es", "IBAN", pii.TypeIBAN, iban("ES", func(r *rand.Rand) string { return digits(r, 20) }, true), "La cuenta es %s."},
		{"it", "IBAN", pii.TypeIBAN, iban("IT", func(r *rand.Rand) string { return "X" + digits(r, 22) }, false), "IBAN: %s"},
		{"nl", "IBAN", pii.TypeIBAN, iban("NL", func(r *rand.Rand) string { return "RABO" + digits(r, 10) }, true), "Rekening %s graag."},
		{"pt", "IBAN", pii.TypeIBAN, iban("PT", func(r *rand.Rand) string { return digits(r, 21) }, false), "O IBAN é %s."},
		{"pl", "IBAN", pii.TypeIBAN, iban("PL", func(r *rand.Rand) string { return digits(r, 24) }, false), "Numer konta: %s."},
		{"gb", "IBAN", pii.TypeIBAN, iban("GB", func(r *rand.Rand) string { return "NWBK" + digits(r, 14) }, true), "Pay into %s please."},
		{"us", "SSN", pii.TypeID, func(r *rand.Rand) (string, string) {
			v := fmt.Sprintf("%03d-%02d-%04d", 1+r.IntN(665), 1+r.IntN(99), 1+r.IntN(9999))
			return v, fmt.Sprintf("%03d-%02d-%04d", 900+r.IntN(100), r.IntN(100), r.IntN(10000))
		}, "My SSN is %s."},
		{"gb", "NINO", pii.TypeID, func(r *rand.Rand) (string, string) {
			v := fmt.Sprintf("%c%c%s%c", "ABCEGHJKLMNPRSTWXYZ"[r.IntN(19)], "ABCEGHJKLMNPRSTWXYZ"[r.IntN(19)], digits(r, 6), "ABCD"[r.IntN(4)])
			if v[:2] == "GB" || v[:2] == "NK" || v[:2] == "KN" || v[:2] == "TN" || v[:2] == "NT" || v[:2] == "ZZ" || v[:2] == "BG" {
				v = "AB" + v[2:]
			}
			return v, v[:8] + "E"
		}, "NI number %s"},
		{"es", "DNI", pii.TypeID, func(r *rand.Rand) (string, string) {
			n := 10000000 + r.IntN(89999999)
			l := "TRWAGMYFPDXBNJZSQVHLCKE"[n%23]
			return fmt.Sprintf("%d%c", n, l), fmt.Sprintf("%d%c", n, "TRWAGMYFPDXBNJZSQVHLCKE"[(n+1)%23])
		}, "Mi DNI es %s."},
		{"es", "NIE", pii.TypeID, func(r *rand.Rand) (string, string) {
			p := r.IntN(3)
			n := 1000000 + r.IntN(8999999)
			v, _ := strconv.Atoi(fmt.Sprintf("%d%d", p, n))
			return fmt.Sprintf("%c%d%c", "XYZ"[p], n, "TRWAGMYFPDXBNJZSQVHLCKE"[v%23]), fmt.Sprintf("%c%d%c", "XYZ"[p], n, "TRWAGMYFPDXBNJZSQVHLCKE"[(v+1)%23])
		}, "NIE: %s"},
		{"it", "codice fiscale", pii.TypeID, func(r *rand.Rand) (string, string) {
			cons := "BCDFGHLMNPRSTVZ"
			var b strings.Builder
			for range 6 {
				b.WriteByte(cons[r.IntN(len(cons))])
			}
			fmt.Fprintf(&b, "%02d%c%02d%c%03d", r.IntN(100), "ABCDEHLMPRST"[r.IntN(12)], 1+r.IntN(28), "ABCDEFGHLMZ"[r.IntN(11)], 1+r.IntN(999))
			s := b.String()
			odd := [26]int{1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23}
			sum := 0
			for i := range 15 {
				c := s[i]
				v := int(c - 'A')
				if c <= '9' {
					v = int(c - '0')
				}
				if i%2 == 0 {
					sum += odd[v]
				} else {
					sum += v
				}
			}
			return s + string(rune('A'+sum%26)), s + string(rune('A'+(sum+1)%26))
		}, "Il mio codice fiscale è %s."},
		{"nl", "BSN", pii.TypeID, withCheck(func(r *rand.Rand) string { return string('1'+byte(r.IntN(9))) + digits(r, 7) }, func(b string) string {
			sum := 0
			for i := range 8 {
				sum += (9 - i) * int(b[i]-'0')
			}
			if c := sum % 11; c < 10 {
				return strconv.Itoa(c)
			}
			return ""
		}, plain), "Mijn BSN is %s."},
		{"fr", "NIR", pii.TypeID, func(r *rand.Rand) (string, string) {
			b := fmt.Sprintf("%d%02d%02d%02d%03d%03d", 1+r.IntN(2), r.IntN(100), 1+r.IntN(12), 1+r.IntN(95), 1+r.IntN(999), 1+r.IntN(999))
			n, _ := strconv.ParseUint(b, 10, 64)
			return fmt.Sprintf("%s%02d", b, 97-n%97), fmt.Sprintf("%s%02d", b, (97-n%97+1)%100)
		}, "Mon numéro de sécurité sociale : %s"},
		{"de", "Steuer-ID", pii.TypeID, func(r *rand.Rand) (string, string) {
			for {
				p := r.Perm(10)
				d := make([]byte, 10)
				for i := range 9 {
					d[i] = byte('0' + p[i])
				}
				d[9] = d[r.IntN(9)]
				r.Shuffle(10, func(i, j int) { d[i], d[j] = d[j], d[i] })
				if d[0] == '0' {
					continue
				}
				prod := 10
				for _, c := range d {
					s := (int(c-'0') + prod) % 10
					if s == 0 {
						s = 10
					}
					prod = s * 2 % 11
				}
				v := string(d) + strconv.Itoa((11-prod)%10)
				return v, bump(v)
			}
		}, "Meine Steuer-ID lautet %s."},
		{"pl", "PESEL", pii.TypeID, func(r *rand.Rand) (string, string) {
			b := fmt.Sprintf("%02d%02d%02d%s", r.IntN(100), 1+r.IntN(12), 1+r.IntN(28), digits(r, 4))
			w := []int{1, 3, 7, 9, 1, 3, 7, 9, 1, 3}
			sum := 0
			for i, x := range w {
				sum += x * int(b[i]-'0')
			}
			v := b + strconv.Itoa((10-sum%10)%10)
			return v, bump(v)
		}, "Mój PESEL: %s"},
		{"pt", "NIF", pii.TypeID, withCheck(func(r *rand.Rand) string { return string("12"[r.IntN(2)]) + digits(r, 7) },
			mod11([]int{9, 8, 7, 6, 5, 4, 3, 2}), plain), "O meu NIF é %s."},
		{"se", "personnummer", pii.TypeID, func(r *rand.Rand) (string, string) {
			b := fmt.Sprintf("%02d%02d%02d%03d", r.IntN(100), 1+r.IntN(12), 1+r.IntN(28), r.IntN(1000))
			sum := 0
			for i := range 9 {
				n := int(b[i]-'0') * (2 - i%2)
				if n > 9 {
					n -= 9
				}
				sum += n
			}
			v := b[:6] + "-" + b[6:] + strconv.Itoa((10-sum%10)%10)
			return v, bump(v)
		}, "Mitt personnummer är %s."},
		{"de", "phone (national)", pii.TypePhone, phone("DE", phonenumbers.MOBILE, false), "Ruf mich an: %s"},
		{"fr", "phone (national)", pii.TypePhone, phone("FR", phonenumbers.MOBILE, false), "Mon portable : %s"},
		{"gb", "phone (national)", pii.TypePhone, phone("GB", phonenumbers.MOBILE, false), "My mobile is %s"},
		{"es", "phone (national)", pii.TypePhone, phone("ES", phonenumbers.MOBILE, false), "Mi móvil es %s"},
		{"it", "phone (national)", pii.TypePhone, phone("IT", phonenumbers.MOBILE, false), "Il mio cellulare è %s"},
		{"nl", "phone (national)", pii.TypePhone, phone("NL", phonenumbers.MOBILE, false), "Mijn nummer is %s"},
		{"pt", "phone (national)", pii.TypePhone, phone("PT", phonenumbers.MOBILE, false), "O meu telemóvel é %s"},
		{"pl", "phone (national)", pii.TypePhone, phone("PL", phonenumbers.MOBILE, false), "Mój numer to %s"},
		{"us", "phone (national)", pii.TypePhone, phone("US", phonenumbers.FIXED_LINE, false), "Call me at %s"},
		{"de", "phone (international)", pii.TypePhone, phone("DE", phonenumbers.FIXED_LINE, true), "Tel. %s"},
		{"fr", "phone (international)", pii.TypePhone, phone("FR", phonenumbers.FIXED_LINE, true), "Téléphone : %s"},
		{"it", "phone (international)", pii.TypePhone, phone("IT", phonenumbers.FIXED_LINE, true), "Numero: %s"},
		{"pl", "phone (international)", pii.TypePhone, phone("PL", phonenumbers.FIXED_LINE, true), "Telefon: %s"},
	}
}

// lookalikes are values of other kinds that must not be reported in the same sentences: order
// numbers, dates, versions, times, amounts and tracking codes.
var lookalikes = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return "#" + digits(r, 6) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("%02d.%02d.%d", 1+r.IntN(28), 1+r.IntN(12), 1990+r.IntN(40))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("%d-%02d-%02d", 1990+r.IntN(40), 1+r.IntN(12), 1+r.IntN(28))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("v%d.%d.%d", r.IntN(10), r.IntN(30), r.IntN(100)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("%d.%03d,%02d €", 1+r.IntN(99), r.IntN(1000), r.IntN(100))
	},
	func(r *rand.Rand) string { return "1Z" + digits(r, 3) + "AA" + digits(r, 11) },
	func(r *rand.Rand) string { return fmt.Sprintf("%02d:%02d", r.IntN(24), r.IntN(60)) },
	func(r *rand.Rand) string { return "RE-" + strconv.Itoa(2000+r.IntN(30)) + "-" + digits(r, 4) },
}

const perCase = 200

func checksums(w io.Writer, seed uint64) error {
	r := rand.New(rand.NewPCG(seed, 17))
	var rows [][]string
	totalValid, foundValid, totalLook, flaggedLook := 0, 0, 0, 0
	for _, c := range genCases() {
		found, flagged := 0, 0
		for range perCase {
			valid, look := c.gen(r)
			other := lookalikes[r.IntN(len(lookalikes))](r)
			text := fmt.Sprintf(c.sentence, valid) + " Ref " + other + "."
			if hasType(text, valid, c.typ) {
				found++
			}
			ls := c.sentence
			if c.typ == pii.TypePhone {
				ls = orderSentences[c.locale]
			}
			bad := fmt.Sprintf(ls, look) + " Ref " + other + "."
			if reportsAny(bad, look) || reportsAny(bad, other) || reportsAny(text, other) {
				flagged++
				if showErrors > 0 && flagged <= 3 {
					fmt.Fprintf(errOut, "checksums %s %s: look-alike reported in %q / %q\n", c.locale, c.kind, bad, text)
				}
			}
		}
		rows = append(rows, []string{c.locale, c.kind, c.typ, fmt.Sprint(perCase), f3(float64(found) / perCase),
			fmt.Sprint(2 * perCase), f3(float64(flagged) / (2 * perCase))})
		totalValid += perCase
		foundValid += found
		totalLook += 2 * perCase
		flaggedLook += flagged
	}
	rows = append(rows, []string{"**all**", "", "", fmt.Sprint(totalValid), f3(float64(foundValid) / float64(totalValid)),
		fmt.Sprint(totalLook), f3(float64(flaggedLook) / float64(totalLook))})
	fmt.Fprintf(w, "### Generated checksum set (seed %d, %d values per row, all entity types requested)\n\n", seed, perCase)
	fmt.Fprintln(w, "Look-alikes: the same sentence with one digit or letter changed (the checksum fails) and an order number, date, version, amount, time or tracking code beside each value; a row's look-alike rate counts sentences in which any of them was reported.")
	fmt.Fprintln(w)
	evalkit.Table(w, []string{"locale", "value", "type", "valid", "recall", "look-alikes", "look-alikes reported"}, rows)
	fmt.Fprintln(w)
	return nil
}

// hasType reports whether a span of type typ covers value in text.
func hasType(text, value, typ string) bool {
	i := strings.Index(text, value)
	for _, e := range find(text, pii.Types()) {
		s := []rune(text)
		if e.typ == typ && string(s[e.start:e.end]) == value {
			return true
		}
		_ = i
	}
	return false
}

// reportsAny reports whether any detected structured span overlaps value in text.
func reportsAny(text, value string) bool {
	i := strings.Index(text, value)
	if i < 0 {
		return false
	}
	start := len([]rune(text[:i]))
	end := start + len([]rune(value))
	for _, e := range find(text, pii.Types()) {
		if e.typ != pii.TypeName && e.start < end && start < e.end {
			return true
		}
	}
	return false
}
