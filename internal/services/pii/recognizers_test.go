package pii

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// found returns the text of every span Detect reports for typ.
func found(text, typ string) []string {
	var out []string
	for _, s := range Detect(text, []string{typ}) {
		if s.Type != typ {
			continue
		}
		out = append(out, text[s.Start:s.End])
	}
	return out
}

type recognizerCase struct {
	name string
	text string
	want []string // nil: nothing detected
}

func runCases(t *testing.T, typ string, cases []recognizerCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := found(tc.text, typ); !slices.Equal(got, tc.want) {
				t.Fatalf("Detect(%q, %s) = %q, want %q", tc.text, typ, got, tc.want)
			}
		})
	}
}

func TestEmail(t *testing.T) {
	runCases(t, TypeEmail, []recognizerCase{
		{"Plain", "write to alice.smith@example.com today", []string{"alice.smith@example.com"}},
		{"SubdomainAndPunctuation", "(bob+tag@mail.example.co.uk), thanks", []string{"bob+tag@mail.example.co.uk"}},
		{"QuotedInText", "'carol@example.org'", []string{"carol@example.org"}},
		{"UnicodeLocalPart", "schreib an jürgen.müller@beispiel.de.", []string{"jürgen.müller@beispiel.de"}},
		{"EndOfSentence", "Mail me at dan@example.net.", []string{"dan@example.net"}},
		{"FileNameIsNotEmail", "see logo@2x.png", nil},
		{"NoTLD", "user@localhost", nil},
		{"NumericTLD", "user@host.123", nil},
		{"GluedToWord", "xuser@example.comabc1", nil},
		{"DoubleAt", "a@b@example.com", nil},
		{"LocalPartTooLong", strings.Repeat("a", 65) + "@example.com", nil},
		{"HandleIsNotEmail", "ping @alice on chat", nil},
	})
}

func TestIBAN(t *testing.T) {
	runCases(t, TypeIBAN, []recognizerCase{
		{"Compact", "IBAN GB82WEST12345698765432.", []string{"GB82WEST12345698765432"}},
		{"Grouped", "pay to GB82 WEST 1234 5698 7654 32 and done", []string{"GB82 WEST 1234 5698 7654 32"}},
		{"German", "DE89370400440532013000", []string{"DE89370400440532013000"}},
		{"GermanGrouped", "Konto DE89 3704 0044 0532 0130 00, danke", []string{"DE89 3704 0044 0532 0130 00"}},
		{"FrenchWithLetter", "FR1420041010050500013M02606", []string{"FR1420041010050500013M02606"}},
		{"LowerCase", "gb82west12345698765432", []string{"gb82west12345698765432"}},
		{"BadChecksum", "GB82WEST12345698765433", nil},
		{"WrongLengthForCountry", "GB82WEST1234569876543", nil},
		{"TooLongForCountry", "GB82WEST123456987654321", nil},
		{"UnknownCountry", "QQ82WEST12345698765432", nil},
		{"GluedToWord", "xGB82WEST12345698765432", nil},
	})
}

func TestCard(t *testing.T) {
	runCases(t, TypeCard, []recognizerCase{
		{"VisaCompact", "card 4111111111111111 ok", []string{"4111111111111111"}},
		{"VisaSpaces", "card 4111 1111 1111 1111 ok", []string{"4111 1111 1111 1111"}},
		{"VisaDashes", "card 4111-1111-1111-1111", []string{"4111-1111-1111-1111"}},
		{"AmexGrouped", "amex 3782 822463 10005", []string{"3782 822463 10005"}},
		{"Amex", "amex 378282246310005", []string{"378282246310005"}},
		{"Mastercard", "mc 5555555555554444", []string{"5555555555554444"}},
		{"Maestro12", "maestro 501864667909", []string{"501864667909"}},
		{"CardThenYear", "4111 1111 1111 1111 2029", []string{"4111 1111 1111 1111"}},
		{"BadLuhn", "card 4111111111111112", nil},
		{"UnknownIssuer", "9111111111111110", nil},
		{"TooLong", "41111111111111111111", nil},
		{"AfterDecimalPoint", "ref 7.4111111111111111", nil},
		{"OddGrouping", "4111 11 111111 11111", nil},
		{"MixedSeparators", "4111 1111-1111 1111", nil},
		{"GluedToLetters", "4111111111111111abc", nil},
	})
}

func TestPhone(t *testing.T) {
	runCases(t, TypePhone, []recognizerCase{
		{"USDashes", "office 650-253-0000 now", []string{"650-253-0000"}},
		{"USParens", "office (650) 253-0000", []string{"(650) 253-0000"}},
		{"USDots", "reach 650.253.0000", []string{"650.253.0000"}},
		{"International", "office +44 20 7031 3000", []string{"+44 20 7031 3000"}},
		{"InternationalTrunkZero", "Tel +46 (0)8 928 571 38", []string{"+46 (0)8 928 571 38"}},
		{"DoubleZeroPrefix", "ring 0049 30 12345678", []string{"0049 30 12345678"}},
		{"FrenchNational", "mon portable 06 12 34 56 78 merci", []string{"06 12 34 56 78"}},
		{"GermanMobile", "erreichbar unter 0171 2345678.", []string{"0171 2345678"}},
		{"UKNational", "ring 020 7946 0000 please", []string{"020 7946 0000"}},
		{"SpanishMobile", "mi móvil es 612 34 56 78", []string{"612 34 56 78"}},
		{"ItalianMobile", "cell 347 123 4567", []string{"347 123 4567"}},
		{"DutchMobile", "bel 06-12345678", []string{"06-12345678"}},
		{"PolishMobile", "numer 512 345 678", []string{"512 345 678"}},
		{"PortugueseMobile", "telemóvel 912 345 678", []string{"912 345 678"}},
		{"Extension", "call 650-253-0000 x123", []string{"650-253-0000 x123"}},
		{"LabelAfter", "416 60 039 office", []string{"416 60 039"}},
		{"TwoInARun", "Tel 030 1234567 0171 2345678", []string{"030 1234567", "0171 2345678"}},
		{"KeywordAdmitsUnknownFormat", "Phone: (37) 788-063", []string{"(37) 788-063"}},
		{"InvalidWithoutKeyword", "see 123-456-7890 above", nil},
		{"TooShort", "call 253-00", nil},
		{"UngroupedWithoutKeyword", "ref 6502530000 above", nil},
		{"OrderNumber", "order 0171 2345678", nil},
		{"OrderBeatsEarlierPhoneWord", "call me about invoice 020 7946 0000", nil},
		{"HouseNumbers", "we live at 975 3968 Bay Street", nil},
		{"DateTime", "on 2015-12-22 04:34:22", nil},
		{"DottedDate", "am 12.03.2024 bitte", nil},
		{"NoLineJoin", "650-253\n0000", nil},
		{"IPv4IsNotPhone", "host 10.20.30.40", nil},
		{"LongDigitTable", "1 2 3 4 5 6 7 8 9 0 1 2", nil},
	})
}

func TestIP(t *testing.T) {
	runCases(t, TypeIP, []recognizerCase{
		{"IPv4", "from 192.168.1.20.", []string{"192.168.1.20"}},
		{"IPv4CIDR", "net 10.0.0.0/8 is private", []string{"10.0.0.0"}},
		{"IPv4Port", "connect 10.1.2.3:8080", nil},
		{"IPv6", "host 2001:db8::1 replied", []string{"2001:db8::1"}},
		{"IPv6Full", "fe80::1ff:fe23:4567:890a", []string{"fe80::1ff:fe23:4567:890a"}},
		{"IPv6EndOfSentence", "from ::1.", []string{"::1"}},
		{"OctetTooLarge", "256.1.1.1", nil},
		{"FiveParts", "1.2.3.4.5", nil},
		{"LeadingZeros", "01.02.03.04", nil},
		{"Version", "v1.2.3.4", nil},
		{"Time", "at 10:30:45", nil},
		{"MAC", "00:1a:2b:3c:4d:5e", nil},
	})
}

func TestNationalID(t *testing.T) {
	runCases(t, TypeID, []recognizerCase{
		{"SSNDashed", "SSN 536-22-1234", []string{"536-22-1234"}},
		{"SSNDashedNoKeyword", "ref 536-22-1234", []string{"536-22-1234"}},
		{"SSNBareWithKeyword", "social security 536221234", []string{"536221234"}},
		{"SSNBareNoKeyword", "order 536221234", nil},
		{"SSNArea666", "666-22-1234", nil},
		{"SSNArea9xx", "912-22-1234", nil},
		{"SSNGroup00", "536-00-1234", nil},
		{"SSNMixedSeparators", "536-22 1234", nil},
		{"NINO", "NI number AB123456C", []string{"AB123456C"}},
		{"NINOSpaced", "AB 12 34 56 C", []string{"AB 12 34 56 C"}},
		{"NINOBadFirstLetter", "QQ123456C", nil},
		{"NINOBadPrefix", "GB123456A", nil},
		{"NINOBadSuffix", "AB123456E", nil},
		{"DNI", "DNI 12345678Z", []string{"12345678Z"}},
		{"DNIDash", "mi DNI es 12345678-Z", []string{"12345678-Z"}},
		{"DNIBadLetter", "DNI 12345678A", nil},
		{"NIE", "NIE X1234567L", []string{"X1234567L"}},
		{"NIEBadLetter", "NIE X1234567A", nil},
		{"BSN", "mijn BSN is 111222333", []string{"111222333"}},
		{"BSNDotted", "BSN: 1112.22.333", []string{"1112.22.333"}},
		{"BSNNoKeyword", "nummer 111222333", nil},
		{"BSNBadCheck", "BSN 111222334", nil},
		{"NIR", "NIR 1 84 12 76 451 089 46", []string{"1 84 12 76 451 089 46"}},
		{"NIRCompact", "numéro de sécurité sociale : 184127645108946", []string{"184127645108946"}},
		{"NIRBadKey", "NIR 1 84 12 76 451 089 47", nil},
		{"NIRNoKeyword", "1 84 12 76 451 089 46", nil},
		{"CodiceFiscale", "CF RSSMRA85T10A562S", []string{"RSSMRA85T10A562S"}},
		{"CodiceFiscaleBadCheck", "CF RSSMRA85T10A562T", nil},
		{"TaxIDDE", "Steuer-ID: 86095742719", []string{"86095742719"}},
		{"TaxIDDEGrouped", "meine Steuer-IdNr 86 095 742 719", []string{"86 095 742 719"}},
		{"TaxIDDEDigitRule", "Steuer-ID 12345678903", nil},
		{"TaxIDDENoKeyword", "Nummer 86095742719", nil},
		{"PESEL", "PESEL: 44051401359", []string{"44051401359"}},
		{"PESEL2000s", "numer PESEL 02240312345", []string{"02240312345"}},
		{"PESELBadCheck", "PESEL 44051401358", nil},
		{"PESELNoKeyword", "44051401359", nil},
		{"NIFPT", "NIF 123456789", []string{"123456789"}},
		{"NIFPTGrouped", "contribuinte n.º 500 001 235", []string{"500 001 235"}},
		{"NIFPTBadCheck", "NIF 123456780", nil},
		{"Aadhaar", "Aadhaar 2345 6789 0124", []string{"2345 6789 0124"}},
		{"AadhaarBadCheck", "Aadhaar 2345 6789 0125", nil},
		{"AadhaarNoKeyword", "2345 6789 0124", nil},
		{"Personnummer", "personnummer 811218-9876", []string{"811218-9876"}},
		{"PersonnummerLong", "19811218-9876", []string{"19811218-9876"}},
		{"PersonnummerBadLuhn", "811218-9875", nil},
		{"PersonnummerBadMonth", "811318-9876", nil},
		{"KeywordAfter", "111222333 (BSN)", []string{"111222333"}},
	})
}

func TestDeny(t *testing.T) {
	for _, tc := range []struct {
		name string
		deny []string
		text string
		want []string
	}{
		{"WholeWordCaseInsensitive", []string{"Project Falcon"}, "About project falcon: ship it", []string{"project falcon"}},
		{"NotInsideWord", []string{"Ann"}, "Annual report by Ann", []string{"Ann"}},
		{"Overlapping", []string{"ab", "b c"}, "ab c", []string{"ab"}},
		{"Punctuation", []string{"ACME-42"}, "code ACME-42.", []string{"ACME-42"}},
		{"Unicode", []string{"Zürich Süd"}, "Filiale ZÜRICH SÜD schliesst", []string{"ZÜRICH SÜD"}},
		{"Repeated", []string{"x"}, "x x x", []string{"x", "x", "x"}},
		{"SuffixOfAnother", []string{"acme corp", "corp"}, "acme corp and corp", []string{"acme corp", "corp"}},
		{"Empty", []string{" "}, "a b", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ents, err := Find(context.Background(), tc.text, Options{Deny: tc.deny})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				if e.Type != TypeCustom {
					t.Fatalf("type %q, want custom", e.Type)
				}
				got = append(got, e.Value)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Find(%q, deny %q) = %q, want %q", tc.text, tc.deny, got, tc.want)
			}
		})
	}
}

func TestAllow(t *testing.T) {
	text := "Mail support@acme.com or alice@example.com, call 650-253-0000."
	for _, tc := range []struct {
		name  string
		allow []string
		deny  []string
		want  []string
	}{
		{"Nothing", nil, nil, []string{"support@acme.com", "alice@example.com", "650-253-0000"}},
		{"WholeValueIgnoringCase", []string{"SUPPORT@ACME.COM"}, nil, []string{"alice@example.com", "650-253-0000"}},
		{"SurroundingSpaceIgnored", []string{" 650-253-0000 "}, nil, []string{"support@acme.com", "alice@example.com"}},
		{"PartOfValueIsNotEnough", []string{"acme.com"}, nil, []string{"support@acme.com", "alice@example.com", "650-253-0000"}},
		{"DenyWinsOverAllow", []string{"support@acme.com"}, []string{"support@acme.com"}, []string{"support@acme.com", "alice@example.com", "650-253-0000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ents, err := Find(context.Background(), text, Options{Types: []string{TypeEmail, TypePhone}, Allow: tc.allow, Deny: tc.deny})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range ents {
				got = append(got, e.Value)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("Find = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestFindOffsetsAreCodePoints(t *testing.T) {
	text := "Grüße 👋 — bob@example.com"
	ents, err := Find(context.Background(), text, Options{Types: []string{TypeEmail}})
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 || ents[0].Start != 10 || ents[0].End != 25 || string([]rune(text)[ents[0].Start:ents[0].End]) != "bob@example.com" {
		t.Fatalf("Find = %+v, want bob@example.com at code points [10, 25)", ents)
	}
}

func TestOverlapLongerWins(t *testing.T) {
	// The IBAN's digits contain a Luhn-valid card-like run; the longer IBAN span wins.
	text := "GB82 WEST 1234 5698 7654 32"
	got := Detect(text, Types())
	if len(got) != 1 || got[0].Type != TypeIBAN {
		t.Fatalf("Detect = %+v, want one iban span", got)
	}
}

func TestOverlapPriority(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cands []cand
		want  []Span
	}{
		{"LongerWins", []cand{{start: 0, end: 12, k: kPhone}, {start: 2, end: 10, k: kCard}}, []Span{{TypePhone, 0, 12}}},
		{"TieGoesToPriority", []cand{{start: 0, end: 10, k: kPhone}, {start: 0, end: 10, k: kID}}, []Span{{TypeID, 0, 10}}},
		{"DisjointKept", []cand{{start: 5, end: 8, k: kName}, {start: 0, end: 3, k: kEmail}}, []Span{{TypeEmail, 0, 3}, {TypeName, 5, 8}}},
		{"CustomWinsTie", []cand{{start: 0, end: 4, k: kName}, {start: 0, end: 4, k: kCustom}}, []Span{{TypeCustom, 0, 4}}},
		{"InsideLongerLoses", []cand{{start: 0, end: 12, k: kName}, {start: 3, end: 5, k: kEmail}, {start: 11, end: 12, k: kIP}}, []Span{{TypeName, 0, 12}}},
		{"PartialOverlapLoses", []cand{{start: 0, end: 6, k: kPhone}, {start: 4, end: 8, k: kCard}, {start: 8, end: 10, k: kIP}}, []Span{{TypePhone, 0, 6}, {TypeIP, 8, 10}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := resolve("0123456789ab", tc.cands); !slices.Equal(got, tc.want) {
				t.Fatalf("resolve = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestDetectIgnoresUnselectedTypes(t *testing.T) {
	text := "mail bob@example.com or call 650-253-0000"
	got := Detect(text, []string{TypePhone})
	if len(got) != 1 || text[got[0].Start:got[0].End] != "650-253-0000" {
		t.Fatalf("Detect = %+v, want only the phone", got)
	}
}
