package main

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// Text that switches language (an e-mail thread in two languages, a customer who starts in
// German and goes on in English, a translation request, a notice in three languages) is
// ordinary, but almost every language switch the shield saw in training was an attack: the
// hand-written hidden attacks of six languages inserted into English BIPIA e-mails, and
// CyberSecEval's "different user input language" variants. The model learned that a switch is
// a sign of an injection. mixedDocs builds harmless documents that switch language, and
// mixedInjected hides attacks in some of them, so that the switch itself says nothing.

// mixedLangs are the languages the mixed documents draw on, with their share: the shield's
// seven most often, then Polish and other languages whose lingua sentences are in the data.
var mixedLangs = []langWeight{
	{"en", 8}, {"de", 5}, {"fr", 5}, {"es", 5}, {"it", 4}, {"nl", 4}, {"pt", 4},
	{"pl", 2}, {"sv", 1}, {"da", 1}, {"cs", 1}, {"ro", 1}, {"ca", 1}, {"tr", 1},
	{"ru", 1}, {"uk", 1}, {"el", 1}, {"id", 1}, {"vi", 1}, {"zh", 1}, {"ja", 1}, {"ar", 1}, {"hi", 1},
}

type langWeight struct {
	lang   string
	weight int
}

// extraMixedLangs are the languages of mixedLangs that shielddata.LinguaLangs lacks: only their
// training halves are read (by the same split), for the mixed documents alone.
func extraMixedLangs() []string {
	var out []string
	for _, l := range mixedLangs {
		if !slices.Contains(shielddata.LinguaLangs, l.lang) {
			out = append(out, l.lang)
		}
	}
	return out
}

// mixedKinds are the kinds of hand-written harmless lines that read as part of an ordinary
// message. Requests to an assistant (task, question, writing, translation) are left out: inside
// a document they are what taskInjections teaches to flag.
var mixedKinds = []string{"message", "email", "chat", "manual", "workplace", "account", "logs", "security", "review", "notes"}

// pools are the harmless pieces mixed documents are made of, per language: chat holds the
// register of messages (hand-written harmless lines and documents of the kinds above; for
// English also CLINC150 and banking77 training utterances, not those taskInjections hides in
// documents; MultiJail training requests), web the lingua training sentences.
type pools struct {
	chat, web map[string][]string
}

func sentencePools(lingua, clinc, banking, multijail []shielddata.Doc, hand map[string][]shielddata.Doc) pools {
	p := pools{chat: map[string][]string{}, web: map[string][]string{}}
	for _, d := range lingua {
		p.web[d.Lang] = append(p.web[d.Lang], d.Text)
	}
	for _, name := range []string{"hand/benign", "hand/message", "hand/context"} {
		for _, d := range hand[name] {
			if slices.Contains(mixedKinds, d.Kind) {
				p.chat[d.Lang] = append(p.chat[d.Lang], d.Text)
			}
		}
	}
	for i, d := range clinc {
		if i%25 != 0 && i%8 == 1 { // every 25th is a task injection; an eighth of the rest is plenty
			p.chat["en"] = append(p.chat["en"], d.Text)
		}
	}
	for i, d := range banking {
		if i%8 == 2 {
			p.chat["en"] = append(p.chat["en"], d.Text)
		}
	}
	for i, d := range multijail {
		if i%5 == 0 && slices.ContainsFunc(mixedLangs, func(l langWeight) bool { return l.lang == d.Lang }) {
			p.chat[d.Lang] = append(p.chat[d.Lang], d.Text)
		}
	}
	return p
}

// mixedDocs builds n harmless documents that switch language, deterministically from seed. A
// document is one of three shapes: a sentence in each of two to five languages in turn (a
// notice, the conformance prose), paragraphs of two or three languages (an e-mail thread, a
// customer switching language), or one language with a short passage of another (a quotation
// or a translation attempt). Lengths run from about 150 to 2,500 characters
// (more when the sentences are long: every language chosen gets at least one).
func mixedDocs(p pools, n int, seed uint64) []shielddata.Doc {
	rng := rand.New(rand.NewPCG(seed, 0x6d69786564)) // "mixed"
	total := 0
	for _, l := range mixedLangs {
		total += l.weight
	}
	pickLang := func(not []string) string {
		for {
			k := rng.IntN(total)
			for _, l := range mixedLangs {
				if k < l.weight {
					if !slices.Contains(not, l.lang) && len(p.chat[l.lang])+len(p.web[l.lang]) > 0 {
						return l.lang
					}
					break
				}
				k -= l.weight
			}
		}
	}
	// pick draws a message piece half of the time, where the language has them.
	pick := func(lang string) string {
		from := p.web[lang]
		if c := p.chat[lang]; len(c) > 0 && (len(from) == 0 || rng.IntN(2) == 0) {
			from = c
		}
		return strings.TrimSpace(from[rng.IntN(len(from))])
	}
	langs := func(k int) []string {
		var out []string
		for range k {
			out = append(out, pickLang(out))
		}
		return out
	}
	var out []shielddata.Doc
	for i := range n {
		limit := 150 + rng.IntN(2350)
		var b strings.Builder
		var used []string
		switch shape := i % 3; shape {
		case 0: // one sentence per language, in turn
			ls := langs(2 + rng.IntN(4))
			used = ls
			for k := 0; b.Len() < limit || k < len(ls); k++ {
				if k > 0 {
					b.WriteString(" ")
				}
				b.WriteString(pick(ls[k%len(ls)]))
			}
		case 1: // paragraphs
			ls := langs(2 + rng.IntN(2))
			used = ls
			sep := []string{"\n\n", "\n", " "}[rng.IntN(3)]
			for k := 0; b.Len() < limit || k < len(ls); k++ {
				if k > 0 {
					b.WriteString(sep)
				}
				lang := ls[k%len(ls)]
				for s := range 1 + rng.IntN(4) {
					if s > 0 {
						b.WriteString(" ")
					}
					b.WriteString(pick(lang))
				}
			}
		default: // one language with a passage of another
			ls := langs(2)
			used = ls
			at := rng.IntN(3)
			for k := 0; b.Len() < limit || k <= at; k++ {
				if k > 0 {
					b.WriteString(" ")
				}
				lang := ls[0]
				if k == at {
					lang = ls[1]
				}
				b.WriteString(pick(lang))
			}
		}
		out = append(out, shielddata.Doc{ID: "mixed" + strconv.Itoa(i), Source: "mixed", Lang: strings.Join(used, "+"), Text: b.String()})
	}
	return out
}

// mixedInjected hides attacks in mixed documents: every hand-written attack (A and I lines of
// every language) once, and half as many short llm-warden and CyberSecEval training attacks, each in
// a mixed document of its own at one of three places (start, middle, end). The label rules of
// load then see the attack inside its document, as they do for the hand-injected documents.
func mixedInjected(mixed []shielddata.Doc, hand map[string][]shielddata.Doc, public []shielddata.Doc) []shielddata.Doc {
	attacks := slices.Clone(hand["hand/attack"])
	nHand := len(attacks)
	var short []shielddata.Doc
	for _, d := range public {
		if len(d.Text) <= 400 {
			short = append(short, d)
		}
	}
	if len(short) > 0 {
		step := max(1, 2*len(short)/nHand) // half as many as the hand-written ones
		for i := 0; i < len(short); i += step {
			attacks = append(attacks, short[i])
		}
	}
	var out []shielddata.Doc
	for i, a := range attacks {
		c := mixed[(i*7919)%len(mixed)]
		d := hide(c.Text, a.Text, a.Labels, i)
		d.ID = a.Source + "/" + a.ID + "+" + c.ID
		d.Source, d.Lang = "mixed-injected", c.Lang
		out = append(out, d)
	}
	return out
}
