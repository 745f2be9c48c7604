package toxicity

import (
	"context"
	"strings"
	"testing"
)

// cursePreparers returns the embedded model's preparer without quote handling (score nil is
// passed to Prepare) and its copy with the curse token.
func cursePreparers(tb testing.TB) (plain, curses *Preparer) {
	tb.Helper()
	plain = newService(tb).prep
	curses, err := plain.WithCurses(CursesFile)
	if err != nil {
		tb.Fatal(err)
	}
	return plain, curses
}

// TestPrepareCurses checks the tokens after a curse with and without the curse token: an
// exclamation gets TokenCurse, an insult keeps the strong token, a curse followed by an address
// keeps the lexicon's token, and without the setting nothing changes.
func TestPrepareCurses(t *testing.T) {
	plain, curses := cursePreparers(t)
	for _, c := range []struct {
		name, text string
		// plain and curse are the prepared texts without and with the curse token.
		plain, curse string
	}{
		{"exclamation", "shit, I forgot my keys", "shit zlexa i forgot my keys", "shit zlexc i forgot my keys"},
		{"intensifier", "I'm so fucking tired", "im so fucking zlexa tired", "im so fucking zlexc tired"},
		{"mild in the lexicon", "damn this printer", "damn zlexb this printer", "damn zlexc this printer"},
		{"not in the lexicon", "what the hell", "what the hell", "what the hell zlexc"},
		{"phrase of the list", "putain de merde, encore", "putain de merde zlexa encore", "putain de merde zlexc encore"},
		{"german", "Scheiße, der Zug ist weg", "scheisse zlexb der zug ist weg", "scheisse zlexc der zug ist weg"},
		{"insult stays strong", "you bitch", "you bitch zlexa", "you bitch zlexa"},
		{"fuck you is a lexicon phrase", "fuck you", "fuck you zlexb", "fuck you zlexb"},
		{"fuck off is a lexicon phrase", "fuck off", "fuck off zlexb", "fuck off zlexb"},
		{"address after the curse", "fuck him", "fuck zlexa him", "fuck zlexa him"},
		{"polarity address after the curse", "merde toi", "merde zlexa toi", "merde zlexa toi"},
		{"address after a curse the lexicon lacks", "hell ya", "hell ya", "hell ya"},
		{"curse at the end", "oh shit", "oh shit zlexa", "oh shit zlexc"},
		{"longer lexicon phrase first", "shit head", "shit head zlexb", "shit head zlexb"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, p := range []struct {
				name string
				prep *Preparer
				want string
			}{{"plain", plain, c.plain}, {"curse token", curses, c.curse}} {
				got, err := p.prep.Prepare(context.Background(), c.text, nil)
				if err != nil {
					t.Fatal(err)
				}
				// Cue tokens ("zneg", "zyneg", ...) are not what this test is about.
				if got = dropCues(got); got != p.want {
					t.Errorf("%s: prepared %q, want %q", p.name, got, p.want)
				}
			}
		})
	}
}

// dropCues removes the cue tokens of polarity words from a prepared text.
func dropCues(s string) string {
	cues := map[string]bool{}
	for _, toks := range cueTokens {
		for _, neg := range toks {
			for _, tok := range neg {
				cues[tok] = true
			}
		}
	}
	words := strings.Fields(s)
	kept := words[:0]
	for _, w := range words {
		if !cues[w] {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// TestWithCursesKeepsOriginal checks that WithCurses leaves the preparer it copies alone.
func TestWithCursesKeepsOriginal(t *testing.T) {
	plain, _ := cursePreparers(t)
	got, err := plain.Prepare(context.Background(), "what the hell, shit", nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := "what the hell shit zlexa"; got != want {
		t.Fatalf("after WithCurses the original prepares %q, want %q", got, want)
	}
}

func TestWithCursesRejects(t *testing.T) {
	plain, _ := cursePreparers(t)
	for name, list := range map[string]string{
		"no language":       "fuck\n",
		"too many fields":   "en\tfuck\tstrong\n",
		"no words":          "en\t...\n",
		"longer than three": "en\tfuck this shit man\n",
		"a group name":      "en\twomen\n",
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := plain.WithCurses(list); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestParseCurseToken(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want, ok bool
	}{{"empty", "", false, true}, {"on", "on", true, true}, {"off", "off", false, false}, {"other", "yes", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCurseToken(c.in)
			if (err == nil) != c.ok || got != c.want {
				t.Fatalf("ParseCurseToken(%q) = %v, %v; want %v, ok %v", c.in, got, err, c.want, c.ok)
			}
		})
	}
}

// TestLoadReadsCurseToken checks that a model file's MetaCurseToken decides whether the service
// gives the curse token, also when it is read with another implicit-quote mode.
func TestLoadReadsCurseToken(t *testing.T) {
	for _, c := range []struct {
		name, meta string
		want, ok   bool
	}{{"absent", "", false, true}, {"on", "on", true, true}, {"unknown", "maybe", false, false}} {
		t.Run(c.name, func(t *testing.T) {
			s := loadWithMeta(t, MetaCurseToken, c.meta, c.ok)
			if s == nil {
				return
			}
			other, err := s.WithImplicitMode(ImplicitOff)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []*Service{s, other} {
				got, err := s.Prepared(context.Background(), "shit, I forgot my keys")
				if err != nil {
					t.Fatal(err)
				}
				if has := strings.Contains(got, TokenCurse); has != c.want {
					t.Errorf("prepared %q: curse token %v, want %v", got, has, c.want)
				}
				// An address after the curse keeps the lexicon's token, also in a service
				// built again from one that reads the curse token.
				if got, err = s.Prepared(context.Background(), "fuck him"); err != nil {
					t.Fatal(err)
				}
				if want := "fuck zlexa him"; got != want {
					t.Errorf("prepared %q, want %q", got, want)
				}
			}
		})
	}
}

// TestEmbeddedHasNoCurseToken checks that the shipped model is read without the curse token, as
// it was trained.
func TestEmbeddedHasNoCurseToken(t *testing.T) {
	s := newService(t)
	if s.prep.curseLex != nil {
		t.Fatal("embedded model read with the curse token")
	}
	got, err := s.Prepared(context.Background(), "shit, I'm so fucking tired")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, TokenCurse) {
		t.Fatalf("prepared %q has the curse token", got)
	}
}

// dropStrength removes the lexicon's strength tokens, TokenCurse among them, from a prepared
// text.
func dropStrength(s string) string {
	words := strings.Fields(s)
	kept := words[:0]
	for _, w := range words {
		if w != TokenStrong && w != TokenMild && w != TokenCurse {
			kept = append(kept, w)
		}
	}
	return strings.Join(kept, " ")
}

// FuzzPrepareCurses checks that the curse token changes nothing but the strength tokens of a
// prepared text, quoted passages and reported speech included.
func FuzzPrepareCurses(f *testing.F) {
	plain, curses := cursePreparers(f)
	// The score of a passage must not depend on its strength tokens, or a passage could turn
	// toxic by the curse token alone.
	score := func(_ context.Context, prepared string) (float64, error) {
		return float64(len(dropStrength(prepared))%10) / 10, nil
	}
	for _, s := range []string{
		"shit, I forgot my keys", "fuck you", "fuck him", "what the hell, porca miseria",
		`He said "fuck this shit, I quit" and left.`, "Scheiße, der Zug ist weg", "zlexc shit zlexa",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		s = strings.ToValidUTF8(s, "\uFFFD")
		got, err := curses.Prepare(context.Background(), s, score)
		if err != nil {
			t.Fatal(err)
		}
		want, err := plain.Prepare(context.Background(), s, score)
		if err != nil {
			t.Fatal(err)
		}
		if dropStrength(got) != dropStrength(want) {
			t.Fatalf("%q: with the curse token %q, without %q: more differs than strength tokens", s, got, want)
		}
	})
}
