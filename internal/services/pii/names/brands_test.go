package names

import "testing"

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
