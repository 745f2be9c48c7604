package main

import (
	"regexp"
	"strings"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// curseRE matches a curse word that can stand as an exclamation or an intensifier aimed at no
// one ("holy shit", "so fucking tired", "damn it", "what the hell"), and the address after it
// when there is one ("fuck you", "fuck off", "shit on him").
var curseRE = regexp.MustCompile(`(?i)\b(fuck|fucking|fuckin|fucked|shit|shitty|bullshit|damn|dammit|goddamn|hell|crap|wtf)\b(\s+(you|u|ya|yall|off|yourself|urself|him|her|them|em|on)\b)?`)

// maskCurses deletes those curse words from the toxic training examples of the given sources,
// unless an address follows them ("fuck you", "fuck off" stay), and returns how many examples
// changed. Harmless examples keep theirs: our examples of profanity aimed at no one ("holy shit,
// we won") are what teaches the curse's weight. The sources' labels then attach to the insults, addresses and context around a
// curse, and the weight of the curse itself is learned from the other sources and from our
// examples, which say that profanity aimed at no one is not toxic.
func maskCurses(docs []corpus.Example, sources map[string]bool) int {
	n := 0
	for i := range docs {
		if !sources[docs[i].Source] || !docs[i].Toxic {
			continue
		}
		masked := curseRE.ReplaceAllStringFunc(docs[i].Text, func(m string) string {
			if strings.ContainsAny(m, " \t\n") {
				return m
			}
			return ""
		})
		if masked != docs[i].Text {
			docs[i].Text = masked
			n++
		}
	}
	return n
}
