package main

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// A window's raw score is its weights' sum divided by the square root of its feature count, so
// a text whose words lean even slightly towards "attack" scores higher the longer it is, up to
// the window's 48 words: three copies of an ordinary German meeting note (39 words) score 0.87
// where one scores 0.34. Without long documents the model never learned to lean the other way,
// because nearly every long non-English text in training was an attack. longDocs builds long
// harmless documents in one language each, from the lingua training sentences (never the
// held-out half the evaluation reads), so that length in a language says nothing by itself.

// longDocLangs are the languages of the long documents: those of shielddata.LinguaLangs, whose
// training halves are already harmless text, and a few more European ones whose lingua sentences
// are in the data (only their training halves are read, by the same split).
func longDocLangs() []string {
	return append(slices.Clone(shielddata.LinguaLangs), "pl", "sv", "da", "cs", "ro", "ca", "uk", "el")
}

// longDocs builds perLang documents per language of lingua, deterministically from seed: each
// of a target length drawn from 100 to 400 words (as textnorm counts them), made of training
// sentences of that language in a shuffled order, without repeating one within a document, and
// joined by spaces or, for some documents, by paragraph breaks.
func longDocs(lingua []shielddata.Doc, langs []string, perLang int, seed uint64) []shielddata.Doc {
	rng := rand.New(rand.NewPCG(seed, 0x6c6f6e67)) // "long"
	byLang := map[string][]string{}
	for _, d := range lingua {
		byLang[d.Lang] = append(byLang[d.Lang], strings.TrimSpace(d.Text))
	}
	var out []shielddata.Doc
	for _, lang := range langs {
		pool := byLang[lang]
		if len(pool) == 0 {
			continue
		}
		words := make([]int, len(pool))
		for i, s := range pool {
			words[i] = countWords(s)
		}
		for k := range perLang {
			target := 100 + rng.IntN(301)
			sep := []string{" ", " ", "\n\n", "\n"}[rng.IntN(4)]
			order := rng.Perm(len(pool))
			var b strings.Builder
			n := 0
			for _, i := range order {
				if n >= target {
					break
				}
				if b.Len() > 0 {
					b.WriteString(sep)
				}
				b.WriteString(pool[i])
				n += words[i]
			}
			out = append(out, shielddata.Doc{ID: "long-" + lang + strconv.Itoa(k), Source: "long", Lang: lang, Text: b.String()})
		}
	}
	return out
}

// longInjected hides attacks in every fourth long document: an attack of the document's
// language from the hand-written examples or CyberSecEval's training half (documents of a
// language with neither get none: an English attack in them would teach that a switch of
// language is an attack), so that a long document in a language is not taken for harmless
// whatever it holds.
func longInjected(docs []shielddata.Doc, hand []shielddata.Doc, cyber []shielddata.Doc) []shielddata.Doc {
	byLang := map[string][]shielddata.Doc{}
	for _, a := range hand {
		byLang[a.Lang] = append(byLang[a.Lang], a)
	}
	for _, a := range cyber {
		if len(a.Text) <= 600 {
			byLang[a.Lang] = append(byLang[a.Lang], a)
		}
	}
	var out []shielddata.Doc
	for i, c := range docs {
		if i%4 != 0 {
			continue
		}
		as := byLang[c.Lang]
		if len(as) == 0 {
			continue
		}
		a := as[(i*7919)%len(as)]
		d := hide(c.Text, a.Text, a.Labels, i/4)
		d.ID = a.Source + "/" + a.ID + "+" + c.ID
		d.Source, d.Lang = "long-injected", c.Lang
		out = append(out, d)
	}
	return out
}
