package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/sluice-api/sluice/internal/services/textnorm"
	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// unaimedSources are the outside sources whose toxic examples -unaimed-weight reweighs. Only
// Davidson: its offensive tweets are English, the language of the word lists below, and its F1
// has slack against its target (see MODEL.md, "Round 14").
var unaimedSources = map[string]bool{"davidson": true}

// exclaimForms are the curse words that can stand as an interjection or an intensifier aimed
// at no one ("holy shit", "so fucking tired", "damn it", "what the hell", "wtf"), in normal
// form. Only these exact forms count (no prefixes: "fuckface" and "shithead" are insults);
// a masked word ("f*cking") counts when it matches one of them letter for letter outside its
// asterisks. Two-word forms are matched before one-word ones.
var exclaimForms = map[string]bool{
	"fuck": true, "fucks": true, "fucking": true, "fuckin": true, "fucked": true, "fuckit": true,
	"fucking hell": true, "holy fuck": true, "holy shit": true, "fucking shit": true,
	"shit": true, "shits": true, "shitty": true, "shitting": true, "bullshit": true, "shite": true,
	"damn": true, "damnit": true, "dammit": true, "damned": true, "goddamn": true, "goddamned": true,
	"goddamnit": true, "goddammit": true, "goddamit": true,
	"hell": true, "crap": true, "crappy": true, "wtf": true, "omfg": true, "ffs": true,
}

// personWords are words that name or point at a person without being a group name, a
// second-person word or an insult (those come from groups.txt, polarity.txt and the lexicon):
// third-person pronouns, the second person of tweets that polarity.txt lacks ("yall", "ya",
// "yo" as "your"), nouns for a person, and a few slang words for a person or insults the
// lexicon lacks. Any of them in a text makes its curse possibly
// aimed, so the text is not picked.
var personWords = map[string]bool{
	"he": true, "she": true, "him": true, "her": true, "his": true, "hers": true, "hes": true, "shes": true,
	"himself": true, "herself": true, "they": true, "them": true, "their": true, "theirs": true, "theyre": true,
	"themselves": true, "em": true, "yall": true, "ya": true, "yo": true, "ye": true, "thee": true, "thou": true,
	"dude": true, "dudes": true, "guy": true, "guys": true, "man": true, "men": true, "boy": true, "boys": true,
	"girl": true, "kid": true, "kids": true, "people": true, "folks": true, "bro": true, "bros": true,
	"bruh": true, "homie": true, "homies": true, "somebody": true, "someone": true, "everybody": true,
	"everyone": true, "nobody": true, "anybody": true, "anyone": true,
	// Slang for a person, or an insult, that the lexicon lacks (shorter than three letters, or
	// spelt as in tweets): "that ho shit", "a nicca is hungry as hell", "so damn ghetto".
	"ho": true, "hos": true, "nicca": true, "niccas": true, "nicka": true, "nickas": true, "ghetto": true,
}

// fuckObjects are the only words allowed right after a bare "fuck" (or "fuck" starting a
// two-word form): "fuck it", "fuck this/that (thing)", "fuck yeah", "fuck me" as surprise.
// Any other word there may be the curse's target ("fuck the police", "fuck <name>"), so the
// text is not picked. Normalization drops punctuation, so "fuck. the game" counts as "fuck the".
var fuckObjects = map[string]bool{
	"it": true, "this": true, "that": true, "yeah": true, "yes": true, "yea": true, "yeh": true,
	"me": true, "my": true, "so": true, "outta": true,
}

// unaimedDetector picks toxic training examples whose only offence is profanity aimed at no
// one (see pick). It reuses the service's lists: groups.txt (every language), the classes you,
// neg and viol of polarity.txt (the example's language), and the abuse lexicon.
type unaimedDetector struct {
	groups   map[string]bool
	lexicon  map[string]bool
	polarity map[string]map[string]bool // lang -> form -> rejected
	stems    map[string][]string        // lang -> stems (polarity forms ending in *)
	maxGroup int
	maxLex   int
}

// newUnaimedDetector reads the lists in the formats of toxicity.NewPreparer.
func newUnaimedDetector(groups, polarity, lexicon string) (*unaimedDetector, error) {
	d := &unaimedDetector{groups: map[string]bool{}, lexicon: map[string]bool{}, polarity: map[string]map[string]bool{}, stems: map[string][]string{}}
	for _, line := range listLines(groups) {
		if len(line) != 2 {
			return nil, fmt.Errorf("unaimed: groups: want lang and form, got %q", line)
		}
		addPhrase(d.groups, &d.maxGroup, line[1])
	}
	for _, line := range listLines(polarity) {
		if len(line) != 3 {
			return nil, fmt.Errorf("unaimed: polarity: want lang, class and form, got %q", line)
		}
		if line[1] != "you" && line[1] != "neg" && line[1] != "viol" {
			continue
		}
		lang := line[0]
		if stem, ok := strings.CutSuffix(line[2], "*"); ok {
			if f := toxicity.NormalForm(stem); f != "" {
				d.stems[lang] = append(d.stems[lang], f)
			}
			continue
		}
		if f := toxicity.NormalForm(line[2]); f != "" {
			if d.polarity[lang] == nil {
				d.polarity[lang] = map[string]bool{}
			}
			d.polarity[lang][f] = true
		}
	}
	for _, line := range listLines(lexicon) {
		if len(line) != 2 {
			return nil, fmt.Errorf("unaimed: lexicon: want form and strength, got %q", line)
		}
		addPhrase(d.lexicon, &d.maxLex, line[0])
	}
	if len(d.groups) == 0 || len(d.lexicon) == 0 {
		return nil, fmt.Errorf("unaimed: empty group list or lexicon")
	}
	return d, nil
}

// addPhrase adds the normal form of a list entry to set, and keeps in longest the word count of
// the longest entry.
func addPhrase(set map[string]bool, longest *int, form string) {
	if f := toxicity.NormalForm(form); f != "" {
		set[f] = true
		*longest = max(*longest, strings.Count(f, " ")+1)
	}
}

func listLines(s string) [][]string {
	var out [][]string
	for _, line := range strings.Split(s, "\n") {
		if line = strings.TrimRight(line, "\r"); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, strings.Split(line, "\t"))
	}
	return out
}

// pick reports whether a toxic example of an unaimedSources source is offensive only through
// profanity aimed at no one. It is conservative: a text is picked only when all of these hold.
//
//  1. It is toxic and has no label (Davidson's hate-speech class has identity_hate).
//  2. Mentions: every "RT @handle" (a retweet's attribution, with or without the colon) is
//     dropped first, wherever it stands; any other @mention is an address, so the text is not
//     picked. Links are dropped.
//  3. Normalized (textnorm), it holds at least one exclamation form (exclaimForms), and every
//     lexicon entry it holds (longest match first, up to three words) is an exclamation form:
//     no insult, slur or sexual word of the lexicon ("bitch", "hoes", "pussy", "nigga",
//     "fag", "retard", "cunt", "fuck off", "fuckface", ...). A masked word ("f*cking") must
//     match an exclamation form; any other masked word rejects the text.
//  4. No group name of groups.txt (any language).
//  5. No word of the classes you, neg or viol of polarity.txt in the example's language (a
//     second-person word; a judgement such as "stupid", "trash", "hate"; a violence word),
//     forms ending in * matched as prefixes.
//  6. No personWords (third-person pronouns, "yall", "dude", "people", ...).
//  7. A bare "fuck" is followed by nothing or by one of fuckObjects.
//
// The time is linear in the text's length (phrases are at most three words).
func (d *unaimedDetector) pick(ex corpus.Example) bool {
	if !ex.Toxic || len(ex.Labels) > 0 || !unaimedSources[ex.Source] {
		return false
	}
	text, ok := stripMentions(ex.Text)
	if !ok {
		return false
	}
	var w textnorm.Words
	if err := textnorm.Normalize(context.Background(), text, &w, 0); err != nil {
		return false
	}
	words := make([]string, w.Len())
	for i := range words {
		words[i] = string(w.Word(i))
	}
	phrase := func(i, k int) string { return strings.Join(words[i:i+k], " ") }
	exclaims := 0
	for i := 0; i < len(words); {
		for k := min(d.maxGroup, len(words)-i); k >= 1; k-- {
			if d.groups[phrase(i, k)] {
				return false
			}
		}
		word := words[i]
		if personWords[word] || d.polar(ex.Lang, word) {
			return false
		}
		if strings.Contains(word, "*") {
			if !maskedExclaim(word) {
				return false
			}
			exclaims++
			i++
			continue
		}
		n := 0 // length of the longest lexicon or exclamation phrase at i
		for k := min(max(d.maxLex, 2), len(words)-i); k >= 1; k-- {
			p := phrase(i, k)
			if exclaimForms[p] {
				n = k
				exclaims++
				break
			}
			if d.lexicon[p] {
				return false
			}
		}
		if word == "fuck" && n == 1 && i+1 < len(words) && !fuckObjects[words[i+1]] {
			return false
		}
		i += max(n, 1)
	}
	return exclaims > 0
}

// polar reports whether word is a you, neg or viol word of polarity.txt in lang.
func (d *unaimedDetector) polar(lang, word string) bool {
	if d.polarity[lang][word] {
		return true
	}
	for _, s := range d.stems[lang] {
		if strings.HasPrefix(word, s) {
			return true
		}
	}
	return false
}

// maskedExclaim reports whether a word with asterisks matches an exclamation form of the same
// length letter for letter outside the asterisks ("f*cking", "sh*t").
func maskedExclaim(word string) bool {
	for f := range exclaimForms {
		if len(f) != len(word) || strings.Contains(f, " ") {
			continue
		}
		match := true
		for i := 0; i < len(f); i++ {
			if word[i] != '*' && word[i] != f[i] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}

// stripMentions drops retweet attributions ("RT @handle", "RT @handle:") and links from a
// tweet. It returns s and false when another @mention remains: the text addresses someone.
func stripMentions(s string) (string, bool) {
	fields := strings.Fields(s)
	out := fields[:0]
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		switch {
		case strings.EqualFold(f, "rt") && i+1 < len(fields) && isMention(fields[i+1]):
			i++ // the handle goes with it
		case strings.HasPrefix(f, "http://") || strings.HasPrefix(f, "https://") || strings.HasPrefix(f, "www."):
		case strings.Contains(f, "@") && isMention(f[strings.Index(f, "@"):]):
			return s, false
		default:
			out = append(out, f)
		}
	}
	return strings.Join(out, " "), true
}

// isMention reports whether f starts with "@" and a handle character.
func isMention(f string) bool {
	return len(f) > 1 && f[0] == '@' && isHandle(f[1])
}

func isHandle(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
}

// checkUnaimedWeight refuses a -unaimed-weight that is not a finite number >= 0.
func checkUnaimedWeight(w float64) error {
	if !(w >= 0) || math.IsInf(w, 0) {
		return fmt.Errorf("-unaimed-weight: want a finite number >= 0, got %v", w)
	}
	return nil
}

// reweighUnaimed multiplies the weight of every picked example by w and returns how many it
// picked. With w == 0 the picked examples are left out (lrtrain wants weights > 0): docs and dw
// are returned without them.
func reweighUnaimed(d *unaimedDetector, docs []corpus.Example, dw []float64, w float64) ([]corpus.Example, []float64, int) {
	n := 0
	keptDocs, keptW := docs[:0:0], dw[:0:0]
	for i, ex := range docs {
		if !d.pick(ex) {
			keptDocs, keptW = append(keptDocs, ex), append(keptW, dw[i])
			continue
		}
		n++
		if w > 0 {
			keptDocs, keptW = append(keptDocs, ex), append(keptW, dw[i]*w)
		}
	}
	return keptDocs, keptW, n
}

// showUnaimed prints how many of Davidson's training examples the detector picks, how many
// harmless ones would pass the same tests if they were toxic (the same shape, labelled
// "neither"), and n picked ones drawn with a PCG seeded with seed.
func showUnaimed(out io.Writer, data string, n int, seed uint64) error {
	train, _, err := corpus.Davidson(data)
	if err != nil {
		return err
	}
	lex, err := lexiconTSV(data)
	if err != nil {
		return err
	}
	det, err := newUnaimedDetector(toxicity.GroupsFile, toxicity.PolarityFile, lex)
	if err != nil {
		return err
	}
	var picked []string
	toxic, harmlessShape := 0, 0
	for _, ex := range train {
		if ex.Toxic {
			toxic++
			if det.pick(ex) {
				picked = append(picked, ex.Text)
			}
			continue
		}
		as := ex
		as.Toxic = true
		if det.pick(as) {
			harmlessShape++
		}
	}
	fmt.Fprintf(out, "davidson training side: %d examples, %d toxic, %d picked (%.1f%% of the toxic); %d harmless ones have the same shape\n",
		len(train), toxic, len(picked), 100*float64(len(picked))/float64(max(toxic, 1)), harmlessShape)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	for _, i := range rng.Perm(len(picked))[:min(n, len(picked))] {
		fmt.Fprintf(out, "%s\n", strings.Join(strings.Fields(picked[i]), " "))
	}
	return nil
}
