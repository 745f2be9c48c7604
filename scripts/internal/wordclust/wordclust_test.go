package wordclust

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestClusterSeparatesContexts clusters a text in which names follow "met" and "with" and verbs
// follow "i" and "we": the names must share a class, the verbs another.
func TestClusterSeparatesContexts(t *testing.T) {
	c := NewCorpus()
	rng := rand.New(rand.NewPCG(1, 2))
	names := []string{"anna", "tomasz", "mike", "sarah", "jonas"}
	verbs := []string{"run", "sleep", "eat", "read", "swim"}
	for range 2000 {
		n, v := names[rng.IntN(len(names))], verbs[rng.IntN(len(verbs))]
		switch rng.IntN(4) {
		case 0:
			c.Add(strings.Fields("i met " + n + " today"))
		case 1:
			c.Add(strings.Fields("we " + v + " with " + n))
		case 2:
			c.Add(strings.Fields("i " + v + " today"))
		default:
			c.Add(strings.Fields("they " + v + " with " + n + " and " + n))
		}
	}
	got, err := c.Cluster(Config{Classes: 4, MinCount: 2, Iterations: 20})
	if err != nil {
		t.Fatal(err)
	}
	for _, group := range [][]string{names, verbs} {
		for _, w := range group[1:] {
			if got[w] != got[group[0]] {
				t.Errorf("%s in class %d, %s in class %d", w, got[w], group[0], got[group[0]])
			}
		}
	}
	if got[names[0]] == got[verbs[0]] {
		t.Error("names and verbs share a class")
	}
	// Deterministic: the same text gives the same classes.
	again, _ := c.Cluster(Config{Classes: 4, MinCount: 2, Iterations: 20})
	if fmt.Sprint(again) != fmt.Sprint(got) {
		t.Error("two runs differ")
	}
}

func TestClusterRareWordsAndBadConfig(t *testing.T) {
	c := NewCorpus()
	c.Add([]string{"a", "b", "a", "b", "once"})
	got, err := c.Cluster(Config{Classes: 2, MinCount: 2, Iterations: 3})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := got["once"]; ok || len(got) != 2 {
		t.Errorf("classes %v: want a and b only", got)
	}
	if _, err := c.Cluster(Config{Classes: 1}); err == nil {
		t.Error("one class accepted")
	}
}
