package names

import (
	"strings"
	"testing"
)

func TestDropNonPeopleBrands(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Whole", "a Calvin Klein jacket", []uint8{O, B, I, O}, []uint8{O, O, O, O}},
		{"PartTagged", "de Carolina Herrera llegó", []uint8{O, O, B, O}, []uint8{O, O, O, O}},
		{"Ampersand", "Ben & Jerry's ice", []uint8{O, B, O}, []uint8{O, O, O}},
		{"ThreeWords", "parfum Yves Saint Laurent .", []uint8{O, B, I, I}, []uint8{O, O, O, O}},
		{"Elsewhere", "my Hugo Boss order . Hugo Boss called", []uint8{O, B, I, O, B, I, O}, []uint8{O, O, O, O, O, O, O}},
		{"InsideLongerName", "my Charles Schwab card ;", []uint8{O, B, I, I}, []uint8{O, O, O, O}},
		{"OtherName", "ask Calvin Harris today", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"LineBreak", "Calvin\nKlein called", []uint8{B, I, O}, []uint8{B, I, O}},
		{"CommonPersonName", "ask Paul Smith today", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
		{"TwoPeople", "Gerste , Johnson and Johnson .", []uint8{B, B, O, B}, []uint8{B, B, O, B}},
	})
}

func TestDropNonPeoplePlaces(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, dropNonPeople, []labelCase{
		{"Whole", "flew from Hong Kong to", []uint8{O, O, B, I, O}, []uint8{O, O, O, O, O}},
		{"SecondWordTagged", "an office in Puerto Rico", []uint8{O, O, O, O, B}, []uint8{O, O, O, O, O}},
		{"ThreeWords", "lives in Rio de Janeiro now", []uint8{O, O, B, I, I, O}, []uint8{O, O, O, O, O, O}},
		{"Elsewhere", "Costa Rica is warm . Costa Rica called", []uint8{B, I, O, O, B, I, O}, []uint8{O, O, O, O, O, O, O}},
		{"LineBreak", "Hong\nKong called", []uint8{B, I, O}, []uint8{B, I, O}},
		{"OtherName", "ask Maria Costa today", []uint8{O, B, I, O}, []uint8{O, B, I, O}},
	})
}

// TestPhraseListsHaveTwoWords checks that every line of the phrase lists has two words or more:
// inKnownPhrase only looks at spans of two or more tokens, so a one-word line would never match.
func TestPhraseListsHaveTwoWords(t *testing.T) {
	for name, list := range map[string]string{"brandList": brandList, "placeList": placeList} {
		t.Run(name, func(t *testing.T) {
			for _, line := range strings.Split(list, "\n") {
				if n := len(Tokenize(line)); n < 2 || n > maxPhraseWords {
					t.Errorf("%q: %d tokens, want 2 to %d", line, n, maxPhraseWords)
				}
			}
		})
	}
}
