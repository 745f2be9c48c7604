package main

import "testing"

func TestWithout(t *testing.T) {
	drop := dropSet(" zqneg, zqnegx ,,")
	for _, c := range []struct {
		name, in, want string
		removed        bool
	}{
		{"some", "zquotox est odieux zneg zqneg zqneg", "zquotox est odieux zneg", true},
		{"negated", "nest pas bien zposx zqnegx", "nest pas bien zposx", true},
		{"none", "zquotox est odieux zneg", "zquotox est odieux zneg", false},
		{"a longer word is kept", "zqnegative", "zqnegative", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, removed := without(c.in, drop)
			if got != c.want || removed != c.removed {
				t.Errorf("without(%q) = %q, %v; want %q, %v", c.in, got, removed, c.want, c.removed)
			}
		})
	}
	if len(dropSet("")) != 0 {
		t.Error("dropSet(\"\") is not empty")
	}
}
