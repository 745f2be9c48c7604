package names

import (
	"strings"
	"testing"
)

// TestLists checks every embedded list: words in lower case (as they are looked up), none
// repeated within a list, and at least one word.
func TestLists(t *testing.T) {
	names, _ := ListFiles()
	if len(names) == 0 {
		t.Fatal("no lists embedded")
	}
	for _, n := range names {
		name := strings.TrimSuffix(strings.TrimPrefix(n, "lists/"), ".txt")
		words := listWords(name)
		if len(words) == 0 {
			t.Errorf("%s: no words", n)
		}
		seen := map[string]bool{}
		for _, w := range words {
			if Lower(w) != w {
				t.Errorf("%s: %q is not in lower case", n, w)
			}
			if seen[w] {
				t.Errorf("%s: %q twice", n, w)
			}
			seen[w] = true
		}
	}
	if !Lookup("januar").has(ClsMonth) || !Lookup("van").has(ClsParticle) || !offices[fnv("minister")] {
		t.Error("a list word is missing from its set")
	}
	defer func() {
		if recover() == nil {
			t.Error("listWords of a missing list did not panic")
		}
	}()
	listWords("no-such-list")
}

func (c Class) has(x Class) bool { return c&x != 0 }
