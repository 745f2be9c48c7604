package names

import "testing"

func TestAdverb(t *testing.T) {
	cases := []struct {
		name, word string
		want       bool
	}{
		{"DutchHier", "Hierdoor", true},
		{"DutchDaar", "Daarmee", true},
		{"DutchWaar", "Waarom", true},
		{"DutchEr", "Erin", true},
		{"DutchList", "Kortom", true},
		{"GermanHier", "Hierbei", true},
		{"GermanDaR", "Darauf", true},
		{"GermanWoR", "Woran", true},
		{"GermanWo", "Womit", true},
		{"GermanDaVowelWithoutR", "Daan", false},
		{"PointerAlone", "Hier", false},
		{"PointerAndName", "Daniel", false},
		{"Surname", "Weber", false},
		{"Number", "2013", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			toks := Tokenize(tc.word)
			f := featurizer{text: tc.word, toks: toks}
			f.info = analyse(tc.word, toks, NewGazetteerBuilder().Build(), nil)
			if got := f.adverb(0); got != tc.want {
				t.Errorf("adverb(%q) = %v, want %v", tc.word, got, tc.want)
			}
		})
	}
}

func TestDropNonPeopleAdverbs(t *testing.T) {
	b := NewGazetteerBuilder()
	b.Add("erin", Given)
	checkRule(t, b.Build(), dropNonPeople, []labelCase{
		{"Alone", "Hierdoor was dit", []uint8{B, O, O}, []uint8{O, O, O}},
		{"BeforeName", "Vanaf Wolvertem rijdt", []uint8{B, I, O}, []uint8{O, B, O}},
		{"KnownName", "Erin Brockovich was", []uint8{B, I, O}, []uint8{B, I, O}},
		{"NoAdverb", "Weber was dit", []uint8{B, O, O}, []uint8{B, O, O}},
	})
}
