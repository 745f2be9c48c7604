package main

import (
	_ "embed"
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// mentionPerFrame is how many texts each frame of mention/frames.txt makes.
const mentionPerFrame = 24

// mentionFrame is one line of mention/frames.txt.
type mentionFrame struct {
	lang, text string
	line       int
}

// framesFile is mention/frames.txt.
//
//go:embed mention/frames.txt
var framesFile string

// readFrames reads mention/frames.txt.
func readFrames() ([]mentionFrame, error) {
	b := framesFile
	var out []mentionFrame
	for i, line := range strings.Split(b, "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		lang, text, ok := strings.Cut(line, "\t")
		if !ok || !strings.Contains(text, "{q}") && !strings.Contains(text, "{b}") && !strings.Contains(text, "{b64}") {
			return nil, fmt.Errorf("mention/frames.txt:%d: want language, tab, frame with {q}, {b} or {b64}", i+1)
		}
		out = append(out, mentionFrame{lang: lang, text: text, line: i + 1})
	}
	return out, nil
}

// quotable reports whether an attack can stand inside a frame as one sentence unit: one line,
// no sentence end inside, no quote marks, at most 20 words; it returns the attack without its
// final punctuation.
func quotable(s string) (string, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ".!?;: ")
	if s == "" || len(strings.Fields(s)) > 20 || strings.ContainsAny(s, "\n\"'«»„“”{}") {
		return "", false
	}
	for _, end := range []string{". ", "! ", "? ", "… "} {
		if strings.Contains(s, end) {
			return "", false
		}
	}
	return s, true
}

// mentions fills the frames with real attacks of the frame's language (attacks) and real
// harmless requests (benign, English): harmless texts that quote, define, translate, decode or
// test an attack without making it (issue 42). The picks rotate deterministically.
func mentions(frames []mentionFrame, attacks, benign []shielddata.Doc) []shielddata.Doc {
	byLang := map[string][]string{}
	for _, a := range attacks {
		if q, ok := quotable(a.Text); ok {
			byLang[a.Lang] = append(byLang[a.Lang], q)
		}
	}
	var reqs []string
	for _, b := range benign {
		if q, ok := quotable(b.Text); ok {
			reqs = append(reqs, q)
		}
	}
	var out []shielddata.Doc
	for f, fr := range frames {
		qs := byLang[fr.lang]
		if strings.Contains(fr.text, "{q}") && len(qs) == 0 || len(reqs) == 0 {
			continue
		}
		for k := 0; k < mentionPerFrame; k++ {
			t := fr.text
			if len(qs) > 0 {
				t = strings.ReplaceAll(t, "{q}", qs[(f*7919+k*104729)%len(qs)])
			}
			b := reqs[(f*31+k*7877)%len(reqs)]
			t = strings.ReplaceAll(t, "{b64}", base64.StdEncoding.EncodeToString([]byte(b)))
			t = strings.ReplaceAll(t, "{b}", b)
			out = append(out, shielddata.Doc{ID: "mention" + strconv.Itoa(fr.line) + "#" + strconv.Itoa(k), Source: "mention", Lang: fr.lang, Text: t, Kind: "mention"})
		}
	}
	return out
}

// appendedReal puts short real attacks (Gandalf, English) after or before every 40th CLINC150
// training utterance, from the 20th on (appended takes those from the first): an order dropped
// into an ordinary question, as strangers type it.
func appendedReal(clinc, attacks []shielddata.Doc) []shielddata.Doc {
	var short []shielddata.Doc
	for _, a := range attacks {
		if a.Lang == "en" && len(strings.Fields(a.Text)) <= 20 && !strings.Contains(a.Text, "\n") {
			short = append(short, a)
		}
	}
	if len(short) == 0 {
		return nil
	}
	seps := []string{" ", ". ", "? ", " - ", "\n", "... ", ", "}
	var out []shielddata.Doc
	for i, q := range clinc {
		if i%40 != 20 {
			continue
		}
		k := i / 40
		sep := seps[k%len(seps)]
		a := short[(k*7919)%len(short)]
		text := q.Text + sep + a.Text
		if k%2 == 1 {
			text = a.Text + sep + q.Text
		}
		out = append(out, shielddata.Doc{ID: "real/" + q.ID + "+" + a.ID, Source: "appended-real", Lang: "en", Text: text, Attack: true, Kind: "appended"})
	}
	return out
}
