package main

import (
	"math"
	"os"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/toxicity"
	"github.com/sluice-api/sluice/scripts/train/toxicity/corpus"
)

// testDetector builds the detector from the service's lists and its shipped lexicon.
func testDetector(t testing.TB) *unaimedDetector {
	t.Helper()
	lex, err := os.ReadFile("../../../internal/services/toxicity/lexicon.tsv")
	if err != nil {
		t.Fatal(err)
	}
	d, err := newUnaimedDetector(toxicity.GroupsFile, toxicity.PolarityFile, string(lex))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func davidsonToxic(text string) corpus.Example {
	return corpus.Example{Text: text, Toxic: true, Lang: "en", Source: "davidson"}
}

func TestUnaimedPick(t *testing.T) {
	d := testDetector(t)
	hate := davidsonToxic("holy shit we won")
	hate.Labels = []string{corpus.IdentityHate}
	harmless := davidsonToxic("holy shit we won")
	harmless.Toxic = false
	germeval := davidsonToxic("holy shit we won")
	germeval.Source = "germeval"
	tests := []struct {
		name string
		ex   corpus.Example
		want bool
	}{
		{"exclamation of joy", davidsonToxic("holy shit we won!!!"), true},
		{"frustration at a thing", davidsonToxic("this damn printer again"), true},
		{"intensifier", davidsonToxic("I'm so fucking tired lol"), true},
		{"fuck it", davidsonToxic("fuck it, going to bed"), true},
		{"fuck this thing", davidsonToxic("fuck this weather"), true},
		{"what the hell", davidsonToxic("what the hell is this weather"), true},
		{"masked curse", davidsonToxic("f*cking rain all day"), true},
		{"retweet attribution dropped", davidsonToxic("RT @fan_1: this damn printer again"), true},
		{"retweet chain dropped", davidsonToxic("RT @a: wow RT @b_2 wtf just happened"), true},
		{"link dropped", davidsonToxic("holy shit http://t.co/x1"), true},
		{"link dropped with its words", davidsonToxic("holy shit https://t.co/you"), true},
		{"no curse", davidsonToxic("what a day we won"), false},
		{"not toxic", harmless, false},
		{"hate speech class", hate, false},
		{"other source", germeval, false},
		{"mention", davidsonToxic("@bob holy shit"), false},
		{"mention after retweet", davidsonToxic("RT @a: @bob holy shit"), false},
		{"mention inside a word", davidsonToxic("holy shit.@bob"), false},
		{"second person", davidsonToxic("holy shit you won"), false},
		{"second person as u", davidsonToxic("damn u late again"), false},
		{"fuck you", davidsonToxic("fuck u"), false},
		{"insult from the lexicon", davidsonToxic("this bitch so fucking loud"), false},
		{"insult lexicon phrase beats the curse", davidsonToxic("what a shitface"), false},
		{"fuck off", davidsonToxic("just fuck off already"), false},
		{"slur from the lexicon", davidsonToxic("damn fags everywhere"), false},
		{"masked other word", davidsonToxic("damn n*gga"), false},
		{"group name", davidsonToxic("shit, the immigrants again"), false},
		{"group phrase", davidsonToxic("damn gay people"), false},
		{"judgement", davidsonToxic("so damn stupid"), false},
		{"judgement stem", davidsonToxic("damn this is disgusting"), false},
		{"judgement stem only", davidsonToxic("damn so despicably late"), false},
		{"violence", davidsonToxic("gonna shoot this shit"), false},
		{"third person", davidsonToxic("he is so fucking annoying"), false},
		{"slang for a person", davidsonToxic("a nicca tired as hell"), false},
		{"slang insult", davidsonToxic("that ho shit"), false},
		{"fuck with a target", davidsonToxic("fuck the lakers"), false},
		{"fuck with a name", davidsonToxic("fuck kevin"), false},
		{"fuck at the end", davidsonToxic("tired as fuck"), true},
		{"fuck me as surprise", davidsonToxic("fuck me its cold"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.pick(tt.ex); got != tt.want {
				t.Errorf("pick(%q) = %v, want %v", tt.ex.Text, got, tt.want)
			}
		})
	}
}

func TestStripMentions(t *testing.T) {
	tests := []struct {
		name, in, want string
		ok             bool
	}{
		{"plain", "holy shit", "holy shit", true},
		{"retweet", "RT @a_1: holy shit", "holy shit", true},
		{"retweet lower case, no colon", "rt @a holy shit", "holy shit", true},
		{"retweet later", "lol RT @b: wow", "lol wow", true},
		{"link", "see https://x.y/z now", "see now", true},
		{"www link", "see www.x.y now", "see now", true},
		{"mention", "@a holy shit", "@a holy shit", false},
		{"mention after punctuation", "wow.@a", "wow.@a", false},
		{"RT without handle", "RT this", "RT this", true},
		{"lone at sign", "meet @ 5", "meet @ 5", true},
		{"empty", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := stripMentions(tt.in)
			if ok != tt.ok || got != tt.want {
				t.Errorf("stripMentions(%q) = %q, %v, want %q, %v", tt.in, got, ok, tt.want, tt.ok)
			}
		})
	}
}

func TestMaskedExclaim(t *testing.T) {
	tests := []struct {
		word string
		want bool
	}{
		{"f*cking", true}, {"sh*t", true}, {"f**k", true}, {"d*mn", true},
		{"b*tch", false}, {"f*ckface", false}, {"*", false}, {"sh*tt", false},
	}
	for _, tt := range tests {
		t.Run(tt.word, func(t *testing.T) {
			if got := maskedExclaim(tt.word); got != tt.want {
				t.Errorf("maskedExclaim(%q) = %v, want %v", tt.word, got, tt.want)
			}
		})
	}
}

func TestReweighUnaimed(t *testing.T) {
	d := testDetector(t)
	docs := []corpus.Example{
		davidsonToxic("holy shit we won"),
		davidsonToxic("fuck you"),
		{Text: "holy shit we won", Lang: "en", Source: "davidson"},
		davidsonToxic("this damn printer"),
	}
	tests := []struct {
		name   string
		w      float64
		want   []float64
		texts  int
		picked int
	}{
		{"scaled", 0.2, []float64{0.1, 0.5, 0.5, 0.1}, 4, 2},
		{"unchanged at 1", 1, []float64{0.5, 0.5, 0.5, 0.5}, 4, 2},
		{"left out at 0", 0, []float64{0.5, 0.5}, 2, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dw := []float64{0.5, 0.5, 0.5, 0.5}
			in := append([]corpus.Example(nil), docs...)
			gotDocs, gotW, n := reweighUnaimed(d, in, dw, tt.w)
			if n != tt.picked || len(gotDocs) != tt.texts || len(gotW) != len(tt.want) {
				t.Fatalf("picked %d, kept %d docs and %d weights; want %d, %d, %d", n, len(gotDocs), len(gotW), tt.picked, tt.texts, len(tt.want))
			}
			for i := range gotW {
				if diff := gotW[i] - tt.want[i]; diff > 1e-12 || diff < -1e-12 {
					t.Errorf("weight %d (%q) = %v, want %v", i, gotDocs[i].Text, gotW[i], tt.want[i])
				}
			}
			if dw[0] != 0.5 || in[1].Text != "fuck you" {
				t.Error("the inputs were changed")
			}
		})
	}
}

func TestCheckUnaimedWeight(t *testing.T) {
	tests := []struct {
		name string
		w    float64
		ok   bool
	}{
		{"default", 1, true}, {"zero", 0, true}, {"fraction", 0.2, true}, {"more", 3, true},
		{"negative", -0.1, false}, {"not a number", math.NaN(), false}, {"infinite", math.Inf(1), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := checkUnaimedWeight(tt.w); (err == nil) != tt.ok {
				t.Errorf("checkUnaimedWeight(%v) = %v, want ok %v", tt.w, err, tt.ok)
			}
		})
	}
}

// FuzzUnaimedPick checks that the detector never panics and picks only texts that hold a curse
// and, after retweet attributions, no @.
func FuzzUnaimedPick(f *testing.F) {
	d := testDetector(f)
	f.Add("RT @a: holy shit we won")
	f.Add("f*cking rain")
	f.Add("fuck the lakers @b")
	f.Fuzz(func(t *testing.T, text string) {
		if !utf8.ValidString(text) {
			return
		}
		if !d.pick(davidsonToxic(text)) {
			return
		}
		s, ok := stripMentions(text)
		if !ok || strings.Contains(s, "@") && isMention(s[strings.Index(s, "@"):]) {
			t.Errorf("picked %q, which addresses someone", text)
		}
	})
}
