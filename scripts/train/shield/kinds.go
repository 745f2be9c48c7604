package main

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// The ordinary kinds of attack (issue 32): examples/kinds/<lang>.txt holds A and N lines in the
// template format of examples.go, each expanded into up to kindVariants texts; every text then
// gets the noise people type with (noisy). The attacks go to hand/attack-kinds, the harmless
// twins to hand/benign-kinds.
const kindVariants = 40

// kindExamples reads examples/kinds/ and returns its attacks and harmless twins, noised.
func kindExamples() (attacks, benign []shielddata.Doc, err error) {
	err = walkExamples("examples/kinds", func(_, line string, e example) error {
		if e.typ != 'A' && e.typ != 'N' {
			return errors.New("only A and N lines are read there")
		}
		seed := "kinds/" + e.lang + strconv.Itoa(e.line)
		texts, err := expandN(strings.TrimSpace(line[strings.IndexByte(line, '|')+1:]), seed, kindVariants)
		if err != nil {
			return err
		}
		rng := rand.New(rand.NewPCG(7, uint64(shielddata.Unit(seed)*(1<<53))))
		for v, t := range texts {
			d := shielddata.Doc{ID: seed + "#" + strconv.Itoa(v), Source: "hand-kinds", Lang: e.lang,
				Text: noisy(t, rng), Kind: e.kind, Labels: e.labels, Attack: e.typ == 'A'}
			if d.Attack {
				attacks = append(attacks, d)
			} else {
				benign = append(benign, d)
			}
		}
		return nil
	})
	return attacks, benign, err
}

// noisy returns t as people type it, at random: lower case (30%) or upper case (5%), the final
// punctuation dropped (25%), a typo in one word (20%: two letters swapped, one dropped or
// doubled), and the words run together (4%). About half the texts stay as written.
func noisy(t string, rng *rand.Rand) string {
	switch r := rng.Float64(); {
	case r < 0.30:
		t = strings.ToLower(t)
	case r < 0.35:
		t = strings.ToUpper(t)
	}
	if rng.Float64() < 0.25 {
		t = strings.TrimRightFunc(t, func(r rune) bool { return unicode.IsPunct(r) || unicode.IsSpace(r) })
	}
	if rng.Float64() < 0.20 {
		t = typo(t, rng)
	}
	if rng.Float64() < 0.04 {
		t = strings.Join(strings.Fields(t), "")
	}
	return t
}

// typo changes one word of at least four letters: two neighbouring letters swapped, one
// dropped, or one doubled.
func typo(t string, rng *rand.Rand) string {
	words := strings.Split(t, " ")
	var long []int
	for i, w := range words {
		if utf8.RuneCountInString(w) >= 4 {
			long = append(long, i)
		}
	}
	if len(long) == 0 {
		return t
	}
	i := long[rng.IntN(len(long))]
	rs := []rune(words[i])
	k := 1 + rng.IntN(len(rs)-2)
	switch rng.IntN(3) {
	case 0:
		rs[k], rs[k+1] = rs[k+1], rs[k]
	case 1:
		rs = append(rs[:k], rs[k+1:]...)
	default:
		rs = append(rs[:k+1], rs[k:]...)
	}
	words[i] = string(rs)
	return strings.Join(words, " ")
}

// appended builds attacks appended to ordinary questions, and their harmless twins: every 40th
// CLINC150 training utterance followed by an English attack of examples/kinds/ (one that is
// not itself a long frame), or by a harmless remark of the twins. The first are attacks; the
// second are not.
func appended(clinc, attacks, benign []shielddata.Doc) (withAttack, withRemark []shielddata.Doc) {
	var short, remarks []shielddata.Doc
	for _, a := range attacks {
		if a.Lang == "en" && len(strings.Fields(a.Text)) <= 14 {
			short = append(short, a)
		}
	}
	for _, b := range benign {
		if b.Lang == "en" && len(strings.Fields(b.Text)) <= 12 {
			remarks = append(remarks, b)
		}
	}
	if len(short) == 0 || len(remarks) == 0 {
		return nil, nil
	}
	seps := []string{" ", ". ", "? ", " - ", "\n", "... ", ", "}
	for i, q := range clinc {
		if i%40 != 0 {
			continue
		}
		k := i / 40
		sep := seps[k%len(seps)]
		a := short[(k*7919)%len(short)]
		withAttack = append(withAttack, shielddata.Doc{ID: "appended/" + q.ID + "+" + a.ID, Source: "appended", Lang: "en",
			Text: q.Text + sep + a.Text, Attack: true, Labels: a.Labels, Kind: "appended"})
		r := remarks[(k*104729)%len(remarks)]
		withRemark = append(withRemark, shielddata.Doc{ID: "remark/" + q.ID + "+" + r.ID, Source: "appended", Lang: "en",
			Text: q.Text + sep + r.Text, Kind: "appended"})
	}
	return withAttack, withRemark
}

// socialNegatives reads the lines of unlabeled/social-media as harmless texts (ordinary text
// written by strangers), every fourth non-blank line, leaving out the lines of the labelled
// sample (devset) and any line of fewer than three words.
func socialNegatives(data string) ([]shielddata.Doc, error) {
	ex, err := devset.NewExcluder(data)
	if err != nil {
		return nil, err
	}
	var out []shielddata.Doc
	for _, src := range devset.Sources {
		b, err := os.ReadFile(filepath.Join(data, devset.Dir, src.Name))
		if err != nil {
			return nil, err
		}
		for i, line := range devset.Lines(b) {
			t := strings.TrimSpace(string(line))
			if i%4 != 0 || len(strings.Fields(t)) < 3 || ex.Sampled(src.Name, i+1) || ex.Excludes(t) {
				continue
			}
			out = append(out, shielddata.Doc{ID: src.Name + ":" + strconv.Itoa(i+1), Source: "social", Text: t})
		}
	}
	return out, nil
}
