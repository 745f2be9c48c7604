package main

import (
	"testing"

	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

func TestMaskCurses(t *testing.T) {
	cases := []struct {
		name, source, text, want string
	}{
		{"Exclamation", "davidson", "holy shit we won", "holy  we won"},
		{"Intensifier", "davidson", "so Fucking tired", "so  tired"},
		{"AddressKept", "davidson", "fuck you and your team", "fuck you and your team"},
		{"OffKept", "davidson", "fuck off", "fuck off"},
		{"InsultKept", "davidson", "damn bitch", " bitch"},
		{"NoPrefixMatch", "davidson", "shithead hellish", "shithead hellish"},
		{"OtherSource", "own", "holy shit we won", "holy shit we won"},
		{"Harmless", "davidson-harmless", "holy shit we won", "holy shit we won"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, toxic := tc.source, true
			if src == "davidson-harmless" {
				src, toxic = "davidson", false
			}
			docs := []corpus.Example{{Text: tc.text, Source: src, Toxic: toxic}}
			n := maskCurses(docs, map[string]bool{"davidson": true})
			if docs[0].Text != tc.want {
				t.Errorf("text = %q, want %q", docs[0].Text, tc.want)
			}
			if want := btoi(tc.text != tc.want); n != want {
				t.Errorf("changed = %d, want %d", n, want)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
