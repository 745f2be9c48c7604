package main

import (
	"unicode/utf8"
)

// joint turns lingua's conditional tables into joint frequencies: the count of every n-gram
// divided by the number of letters in the corpus, J(a) = P(a), J(ab) = J(a)·P(b|a), and so on.
// An n-gram whose prefix is missing (which lingua's construction never produces) is dropped.
func joint(t linguaTables) map[string]float64 {
	j := make(map[string]float64, len(t[1])+len(t[2])+len(t[3])+len(t[4])+len(t[5]))
	for g, p := range t[1] {
		j[g] = p
	}
	for n := 2; n <= 5; n++ {
		for g, p := range t[n] {
			_, last := utf8.DecodeLastRuneInString(g)
			if prefix, ok := j[g[:len(g)-last]]; ok {
				j[g] = prefix * p
			}
		}
	}
	return j
}

// padded derives the counts (relative to the number of letters) of the n-grams of words padded
// with a boundary on each side, " word ", up to length 5, from the joint frequencies of the
// n-grams inside words:
//
//	count(" g")  = J(g) - Σx J(xg)                      words starting with g (|g| <= 4)
//	count("g ")  = J(g) - Σy J(gy)                      words ending with g   (|g| <= 4)
//	count(" g ") = J(g) - Σx J(xg) - Σy J(gy) + Σxy J(xgy)  the word g     (|g| <= 3)
//	count(" ")   = Σa count(" a")                       the number of words
//
// which holds because lingua counted every run of letters: an occurrence of g either has a
// letter before it or starts a run. Letters-only n-grams keep their joint frequency. Counts that
// come out negative through rounding are dropped.
func padded(j map[string]float64) map[string]float64 {
	before := map[string]float64{} // Σx J(xg)
	after := map[string]float64{}  // Σy J(gy)
	both := map[string]float64{}   // Σxy J(xgy)
	for g, v := range j {
		n := utf8.RuneCountInString(g)
		if n < 2 {
			continue
		}
		_, first := utf8.DecodeRuneInString(g)
		_, last := utf8.DecodeLastRuneInString(g)
		before[g[first:]] += v
		after[g[:len(g)-last]] += v
		if n >= 3 {
			both[g[first:len(g)-last]] += v
		}
	}
	out := make(map[string]float64, 3*len(j))
	words := 0.0
	const eps = 1e-15
	for g, v := range j {
		out[g] = v
		n := utf8.RuneCountInString(g)
		if n > 4 {
			continue
		}
		s := v - before[g]
		e := v - after[g]
		if s > eps*v+1e-18 {
			out[" "+g] = s
			if n == 1 {
				words += s
			}
		}
		if e > eps*v+1e-18 {
			out[g+" "] = e
		}
		if n <= 3 {
			if w := v - before[g] - after[g] + both[g]; w > eps*v+1e-18 {
				out[" "+g+" "] = w
			}
		}
	}
	out[" "] = words
	return out
}
