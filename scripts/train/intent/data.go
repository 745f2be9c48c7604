package main

import (
	"fmt"
	"slices"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// example is one labelled utterance; label indexes the catalog's intents, or is outOfScope.
type example struct {
	text  string
	label int
}

const outOfScope = -1

// split is what one catalog is trained and tuned on. The test splits are never read.
type split struct {
	intents []string
	// train is what the shipped model learns from (out-of-scope examples included).
	train []example
	// tune is the validation part the threshold is chosen on, by a model that never saw it.
	tune []example
	// refit, when set, is added to train after the threshold is chosen: the shipped model is
	// trained again on train + refit with the same options and keeps that threshold.
	refit []example
}

type clinc struct {
	intents                      []string
	train, val, oosTrain, oosVal []example
	banking                      map[string]bool // intents of the banking and credit_cards domains
}

func loadCLINC(data string) (*clinc, error) {
	dir, err := evalkit.Require(data, "intent", "clinc150")
	if err != nil {
		return nil, err
	}
	raw, err := evalkit.ReadJSON[map[string][][2]string](dir + "/data_full.json")
	if err != nil {
		return nil, err
	}
	domains, err := evalkit.ReadJSON[map[string][]string](dir + "/domains.json")
	if err != nil {
		return nil, err
	}
	c := &clinc{banking: map[string]bool{}}
	for _, p := range raw["train"] {
		if !slices.Contains(c.intents, p[1]) {
			c.intents = append(c.intents, p[1])
		}
	}
	slices.Sort(c.intents)
	conv := func(name string, oos bool) ([]example, error) {
		var out []example
		for _, p := range raw[name] {
			e := example{text: p[0], label: outOfScope}
			if !oos {
				i, ok := slices.BinarySearch(c.intents, p[1])
				if !ok {
					return nil, fmt.Errorf("clinc150 %s: unknown intent %q", name, p[1])
				}
				e.label = i
			}
			out = append(out, e)
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("clinc150: split %s is empty", name)
		}
		return out, nil
	}
	for _, s := range []struct {
		name string
		oos  bool
		dst  *[]example
	}{{"train", false, &c.train}, {"val", false, &c.val}, {"oos_train", true, &c.oosTrain}, {"oos_val", true, &c.oosVal}} {
		if *s.dst, err = conv(s.name, s.oos); err != nil {
			return nil, err
		}
	}
	for _, d := range []string{"banking", "credit_cards"} {
		if len(domains[d]) == 0 {
			return nil, fmt.Errorf("clinc150 domains.json: no domain %q", d)
		}
		for _, s := range domains[d] {
			c.banking[s] = true
		}
	}
	for _, s := range []string{"exchange_rate", "direct_deposit"} {
		if _, ok := slices.BinarySearch(c.intents, s); !ok {
			return nil, fmt.Errorf("clinc150: no intent %q", s)
		}
		c.banking[s] = true
	}
	return c, nil
}

// assistantSplit: the shipped model learns from CLINC train, two thirds of val (the first and
// second of every three val utterances of each intent) and oos_train; the threshold is tuned on
// the remaining third of val and oos_val.
func assistantSplit(c *clinc) split {
	s := split{intents: c.intents}
	s.train = append(slices.Clone(c.train), c.oosTrain...)
	seen := make([]int, len(c.intents))
	for _, e := range c.val {
		if seen[e.label]%3 == 2 {
			s.tune = append(s.tune, e)
		} else {
			s.train = append(s.train, e)
		}
		seen[e.label]++
	}
	s.tune = append(s.tune, c.oosVal...)
	return s
}

// bankingSplit: the model the threshold is tuned on learns from banking77 train except every
// tenth row, and from out-of-scope examples taken from CLINC train and oos_train, leaving out the
// CLINC intents banking77 covers too (clinc.banking). The threshold is tuned on the held back
// tenth of banking77 train, with CLINC val and oos_val (the same intents left out) as out of
// scope. The shipped model is then trained again on all of banking77 train (the same negatives)
// and keeps that threshold: the banking threshold only guards against out-of-scope requests, so
// it carries over, and the held back tenth is worth more as training data.
func bankingSplit(data string, c *clinc) (split, error) {
	dir, err := evalkit.Require(data, "intent", "banking77")
	if err != nil {
		return split{}, err
	}
	cats, err := evalkit.ReadJSON[[]string](dir + "/categories.json")
	if err != nil {
		return split{}, err
	}
	s := split{intents: slices.Sorted(slices.Values(cats))}
	rows, err := evalkit.ReadCSV(dir+"/train.csv", ',')
	if err != nil {
		return split{}, err
	}
	for i, r := range rows {
		label, ok := slices.BinarySearch(s.intents, r["category"])
		if !ok {
			return split{}, fmt.Errorf("banking77 train: unknown category %q", r["category"])
		}
		e := example{text: r["text"], label: label}
		if i%10 == 9 {
			s.tune = append(s.tune, e)
			s.refit = append(s.refit, e)
		} else {
			s.train = append(s.train, e)
		}
	}
	if len(s.train) == 0 {
		return split{}, fmt.Errorf("banking77 train: no rows")
	}
	other := func(es []example) []example {
		var out []example
		for _, e := range es {
			if e.label == outOfScope || !c.banking[c.intents[e.label]] {
				out = append(out, example{text: e.text, label: outOfScope})
			}
		}
		return out
	}
	s.train = append(s.train, other(append(slices.Clone(c.train), c.oosTrain...))...)
	s.tune = append(s.tune, other(append(slices.Clone(c.val), c.oosVal...))...)
	return s, nil
}
