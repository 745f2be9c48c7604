package names

import "testing"

func TestAddPeople(t *testing.T) {
	g := NewGazetteerBuilder().Build()
	checkRule(t, g, addPeople, []labelCase{
		{"Novel", "Unlike the Jensen novel", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"TwoWordAuthor", "the Stieg Larsson novels", []uint8{O, O, O, O}, []uint8{O, B, I, O}},
		{"Administration", "during the Johnson administration", []uint8{O, O, O, O}, []uint8{O, O, B, O}},
		{"NovelPlace", "the Paris novel", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NovelAllCaps", "the BBC novel", []uint8{O, O, O}, []uint8{O, O, O}},
		{"NovelThreeWords", "the Big Red Dog novel", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"NoWorkNoun", "the Jensen car", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Given", "Kevin had given Alma his address", []uint8{B, O, O, O, O, O}, []uint8{B, O, O, B, O, O}},
		{"Sent", "I sent Maaike her keys", []uint8{O, O, O, O, O}, []uint8{O, O, B, O, O}},
		{"GivenNoPossessive", "they gave Alma a book", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"GivenPlace", "I told Paris my plans", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"ExBand", "by ex-Zombie Ryhänen is", []uint8{O, B, O, O}, []uint8{O, O, B, O}},
		{"ExBandInside", "by ex-Zombie Ryhänen is", []uint8{O, B, I, O}, []uint8{O, O, B, O}},
		{"ExLowerCase", "by ex-Zombie striker", []uint8{O, O, O}, []uint8{O, O, O}},
		{"ExWife", "my ex-wife Anna", []uint8{O, O, O}, []uint8{O, O, O}},
		{"Founders", "our 3 founders: Gerste, Johnson and Pratt", []uint8{O, O, O, O, O, O, O}, []uint8{O, O, O, B, B, O, B}},
		{"FoundersStopAtWord", "our founders: Gerste and the team", []uint8{O, O, O, O, O, O}, []uint8{O, O, B, O, O, O}},
		{"MembersNoColon", "the members Gerste and Pratt", []uint8{O, O, O, O, O}, []uint8{O, O, O, O, O}},
		{"Speakers", "Ubul: What a wife.\nDestiny: Remember me.\nNicole: Yes", []uint8{O, O, O, O, O, O, O, B, O}, []uint8{B, O, O, O, B, O, O, B, O}},
		{"SpeakersNoneNamed", "Ella: What a wife.\nDestiny: Remember me.", []uint8{O, O, O, O, O, O, O}, []uint8{O, O, O, O, O, O, O}},
		{"SpeakersOneLine", "Ella: What a wife, Destiny", []uint8{B, O, O, O, O}, []uint8{B, O, O, O, O}},
		{"SpeakersLexicon", "Nicole: hi\nUser: hello", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
		{"LabelAtLineEnd", "Nicole: hi\nAddress:\nMain", []uint8{B, O, O, O}, []uint8{B, O, O, O}},
	})
}
