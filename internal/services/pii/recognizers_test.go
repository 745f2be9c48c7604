package pii

import (
	"slices"
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
		{"FileNameIsNotEmail", "see logo@2x.png", nil},
		{"NoTLD", "user@localhost", nil},
		{"NumericTLD", "user@host.123", nil},
		{"GluedToWord", "xuser@example.comabc1", nil},
	})
}

func TestIBAN(t *testing.T) {
	runCases(t, TypeIBAN, []recognizerCase{
		{"Compact", "IBAN GB82WEST12345698765432.", []string{"GB82WEST12345698765432"}},
		{"Grouped", "pay to GB82 WEST 1234 5698 7654 32 and done", []string{"GB82 WEST 1234 5698 7654 32"}},
		{"German", "DE89370400440532013000", []string{"DE89370400440532013000"}},
		{"FrenchWithLetter", "FR1420041010050500013M02606", []string{"FR1420041010050500013M02606"}},
		{"LowerCase", "gb82west12345698765432", []string{"gb82west12345698765432"}},
		{"BadChecksum", "GB82WEST12345698765433", nil},
		{"WrongLengthForCountry", "GB82WEST1234569876543", nil},
		{"UnknownCountry", "QQ82WEST12345698765432", nil},
	})
}

func TestCard(t *testing.T) {
	runCases(t, TypeCard, []recognizerCase{
		{"VisaCompact", "card 4111111111111111 ok", []string{"4111111111111111"}},
		{"VisaSpaces", "card 4111 1111 1111 1111 ok", []string{"4111 1111 1111 1111"}},
		{"VisaDashes", "card 4111-1111-1111-1111", []string{"4111-1111-1111-1111"}},
		{"Amex", "amex 378282246310005", []string{"378282246310005"}},
		{"Mastercard", "mc 5555555555554444", []string{"5555555555554444"}},
		{"CardThenYear", "4111 1111 1111 1111 2029", []string{"4111 1111 1111 1111"}},
		{"BadLuhn", "card 4111111111111112", nil},
		{"UnknownIssuer", "9111111111111110", nil},
		{"TooLong", "41111111111111111111", nil},
		{"AfterDecimalPoint", "ref 7.4111111111111111", nil},
	})
}

func TestPhone(t *testing.T) {
	runCases(t, TypePhone, []recognizerCase{
		{"USDashes", "call 650-253-0000 now", []string{"650-253-0000"}},
		{"USParens", "call (650) 253-0000", []string{"(650) 253-0000"}},
		{"USDots", "call 650.253.0000", []string{"650.253.0000"}},
		{"International", "office +44 20 7031 3000", []string{"+44 20 7031 3000"}},
		{"InternationalFrance", "tel +33 1 42 68 53 00.", []string{"+33 1 42 68 53 00"}},
		{"Extension", "call 650-253-0000 x123", []string{"650-253-0000 x123"}},
		{"InvalidAreaCode", "call 123-456-7890", nil},
		{"TooShort", "call 253-0000", nil},
		{"DateTime", "on 2015-12-22 04:34:22", nil},
		{"NoLineJoin", "650-253\n0000", nil},
	})
}

func TestIP(t *testing.T) {
	runCases(t, TypeIP, []recognizerCase{
		{"IPv4", "from 192.168.1.20.", []string{"192.168.1.20"}},
		{"IPv6", "host 2001:db8::1 replied", []string{"2001:db8::1"}},
		{"IPv6Full", "fe80::1ff:fe23:4567:890a", []string{"fe80::1ff:fe23:4567:890a"}},
		{"OctetTooLarge", "256.1.1.1", nil},
		{"FiveParts", "1.2.3.4.5", nil},
		{"LeadingZeros", "01.02.03.04", nil},
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
		{"DNI", "DNI 12345678Z", []string{"12345678Z"}},
		{"DNIBadLetter", "DNI 12345678A", nil},
		{"NIE", "NIE X1234567L", []string{"X1234567L"}},
		{"NIEBadLetter", "NIE X1234567A", nil},
		{"BSN", "mijn BSN is 111222333", []string{"111222333"}},
		{"BSNNoKeyword", "nummer 111222333", nil},
		{"BSNBadCheck", "BSN 111222334", nil},
		{"NIR", "NIR 1 84 12 76 451 089 46", []string{"1 84 12 76 451 089 46"}},
		{"NIRBadKey", "NIR 1 84 12 76 451 089 47", nil},
		{"NIRNoKeyword", "1 84 12 76 451 089 46", nil},
		{"CodiceFiscale", "CF RSSMRA85T10A562S", []string{"RSSMRA85T10A562S"}},
		{"CodiceFiscaleBadCheck", "CF RSSMRA85T10A562T", nil},
		{"Aadhaar", "Aadhaar 2345 6789 0124", []string{"2345 6789 0124"}},
		{"AadhaarBadCheck", "Aadhaar 2345 6789 0125", nil},
		{"AadhaarNoKeyword", "2345 6789 0124", nil},
		{"Personnummer", "personnummer 811218-9876", []string{"811218-9876"}},
		{"PersonnummerBadLuhn", "811218-9875", nil},
		{"PersonnummerBadMonth", "811318-9876", nil},
	})
}

func TestName(t *testing.T) {
	runCases(t, TypeName, []recognizerCase{
		{"Honorific", "Please ask Dr. Ada Lovelace.", []string{"Ada Lovelace"}},
		{"HonorificNoDot", "Ms Jones called", []string{"Jones"}},
		{"MyNameIs", "Hello, my name is Rahul Sharma and", []string{"Rahul Sharma"}},
		{"GivenAndSurname", "yesterday Maria Garcia Lopez paid", []string{"Maria Garcia Lopez"}},
		{"Initial", "John F. Kennedy spoke", []string{"John F. Kennedy"}},
		{"Particle", "by Dr. Ludwig van Beethoven", []string{"Ludwig van Beethoven"}},
		{"Possessive", "Alice Goldberg's book", []string{"Alice Goldberg"}},
		{"Regards", "Kind regards,\nSophie Martin", []string{"Sophie Martin"}},
		{"NameLabel", "Name: Zbigniew Nowak", []string{"Zbigniew Nowak"}},
		{"WeakCueKnownName", "Hi, I'm Sarah", []string{"Sarah"}},
		{"Unicode", "Dear José Núñez,", []string{"José Núñez"}},
		{"DearSir", "Dear Sir, thanks", nil},
		{"WeakCueUnknownWord", "This is Microsoft support", nil},
		{"GivenNameAlone", "Thomas said hi", nil},
		{"StreetNamedAfterPerson", "Rua Ana Caciola 1159", nil},
		{"HouseNumber", "lives on Peter Zuidhove 188", nil},
		{"StopWordAfterGiven", "Maria Street is closed", nil},
		{"LowerCase", "my friend maria garcia", nil},
	})
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
		cands []Span
		want  []Span
	}{
		{"LongerWins", []Span{{TypePhone, 0, 12}, {TypeCard, 2, 10}}, []Span{{TypePhone, 0, 12}}},
		{"TieGoesToPriority", []Span{{TypePhone, 0, 10}, {TypeID, 0, 10}}, []Span{{TypeID, 0, 10}}},
		{"DisjointKept", []Span{{TypeName, 5, 8}, {TypeEmail, 0, 3}}, []Span{{TypeEmail, 0, 3}, {TypeName, 5, 8}}},
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
