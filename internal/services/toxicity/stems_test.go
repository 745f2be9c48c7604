package toxicity

import "testing"

func TestStemSetLongest(t *testing.T) {
	var s stemSet[int]
	s.set("degueul", 1)
	s.set("degu", 2)
	s.set("ratte", 3)
	for _, tc := range []struct {
		name string
		word string
		want int
	}{
		{"LongestWins", "degueulasse", 1},
		{"ShortStem", "deguise", 2},
		{"Exact", "ratte", 3},
		{"TooShort", "deg", 0},
		{"NoHead", "maison", 0},
		{"HeadButNoStem", "rattle", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := s.longest([]byte(tc.word)); got != tc.want {
				t.Fatalf("longest(%q) = %d, want %d", tc.word, got, tc.want)
			}
		})
	}
}
