package toxicity

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

func newService(tb testing.TB) *Service {
	tb.Helper()
	s, err := New()
	if err != nil {
		tb.Fatalf("New: %v", err)
	}
	return s
}

// config is the conformance suite's configuration: ordinary texts in every supported language,
// and the invariants every toxicity result keeps.
func config() servicetest.Config {
	return servicetest.Config{
		Inputs: []string{
			"You are a worthless idiot and everyone knows it.",
			"Du bist ein dummer Idiot.",
			"Merci pour votre aide, la réunion est à dix heures.",
			"Eres un imbécil y no vales nada.",
			"La riunione è stata spostata a domani mattina.",
			"Ik kom morgen om negen uur langs.",
			"Obrigado pela ajuda com o relatório.",
		},
		Check: checkResult,
	}
}

// checkResult holds for every result: a score in [0, 1], labels from the descriptor (sorted, no
// repeats), and no labels but profanity on a text that scores well below the threshold.
func checkResult(_ string, res services.Result) error {
	if res.Score < 0 || res.Score > 1 {
		return fmt.Errorf("score %v outside [0, 1]", res.Score)
	}
	for i, l := range res.Labels {
		if !slices.Contains(Labels, l) {
			return fmt.Errorf("unknown label %q", l)
		}
		if i > 0 && res.Labels[i-1] >= l {
			return fmt.Errorf("labels %v not sorted and unique", res.Labels)
		}
	}
	if res.Verdict == services.VerdictPass && len(res.Labels) > 0 && !slices.Equal(res.Labels, []string{LabelProfanity}) {
		return fmt.Errorf("verdict pass with labels %v", res.Labels)
	}
	return nil
}

func TestConformance(t *testing.T) {
	servicetest.Run(t, newService(t), config())
}

func run(t *testing.T, s *Service, text string, params services.Params) services.Result {
	t.Helper()
	res, err := s.Run(context.Background(), servicetest.Config{Params: params}.Request(s.Descriptor(), text))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

// TestMultilingual checks the kinds of text the service exists for, in every supported
// language: abuse with and without swear words, threats and dehumanising statements are
// flagged; counter-speech, negation, reporting, technical uses of violent words, innocent
// words that contain a swear word (Scunthorpe) and profanity aimed at no one are not.
func TestMultilingual(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name  string
		text  string
		toxic bool
	}{
		{"en/insult", "You are a pathetic, worthless idiot.", true},
		{"en/dehumanising", "Old people are useless parasites draining our money.", true},
		{"en/threat", "I know where you live and I am going to hurt you.", true},
		{"en/obfuscated", "shut up you st*pid b1tch", true},
		{"en/counter-speech", "Calling immigrants vermin is disgusting and has to stop.", false},
		{"en/negation", "I would never say that women are worthless.", false},
		{"en/news", "The police arrested a man who had threatened to kill his neighbour.", false},
		{"en/kill-the-process", "If the server hangs, kill the process and restart it.", false},
		{"en/scunthorpe", "Scunthorpe United won in Sussex after a classic cockpit assessment.", false},
		{"en/profane-insult", "Fuck off, you lying sack of shit.", true},
		{"en/exclamation", "Damn, this soup is really good.", false},
		{"de/insult", "Du bist ein dummer Idiot.", true},
		{"de/dehumanising", "Flüchtlinge sind Ungeziefer und gehören nicht hierher.", true},
		{"de/neutral", "Der Zug nach Berlin fährt um neun Uhr ab.", false},
		{"fr/insult", "Tu es un pauvre con et un incapable.", true},
		{"fr/neutral", "Nous avons réservé une table pour quatre personnes ce soir.", false},
		{"fr/exclamation", "Putain, quelle belle surprise ce matin.", false},
		{"es/insult", "Eres un imbécil y no vales nada.", true},
		{"es/neutral", "Mañana vamos a la playa con mis primos.", false},
		{"es/exclamation", "Joder, qué partidazo hemos visto esta noche.", false},
		{"es/profane-insult", "Vete a la mierda, imbécil.", true},
		{"it/insult", "Sei un idiota e un fallito.", true},
		{"it/neutral", "Domani andiamo al mare con i bambini.", false},
		{"it/exclamation", "Cazzo, che tramonto incredibile stasera.", false},
		{"nl/insult", "Je bent een domme idioot.", true},
		{"nl/neutral", "Morgen gaan we met de fiets naar de markt.", false},
		{"nl/exclamation", "Godverdomme, wat een mooie dag vandaag.", false},
		{"pt/insult", "Você é um idiota inútil.", true},
		{"pt/neutral", "Amanhã vamos almoçar com a família.", false},
		{"pt/exclamation", "Porra, que show incrível foi esse ontem.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, tc.text, nil)
			if got := res.Verdict == services.VerdictFlag; got != tc.toxic {
				t.Errorf("verdict %s (score %.3f, labels %v), want toxic=%v", res.Verdict, res.Score, res.Labels, tc.toxic)
			}
		})
	}
}

// TestLabels checks that a flagged text names the kind of toxicity it holds.
func TestLabels(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name, text, label string
	}{
		{"threat", "I am going to kill you and your whole family.", LabelThreat},
		{"insult", "You are a stupid, useless moron.", LabelInsult},
		{"identity_hate", "Muslims are vermin and should be driven out of the country.", LabelIdentityHate},
		{"profanity", "You fucking piece of shit, get out of my sight.", LabelProfanity},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, tc.text, nil)
			if res.Verdict != services.VerdictFlag || !slices.Contains(res.Labels, tc.label) {
				t.Errorf("verdict %s, labels %v (score %.3f), want flag with %q", res.Verdict, res.Labels, res.Score, tc.label)
			}
		})
	}
}

// TestThreshold checks that the threshold param moves the verdict and nothing else: the same
// score is flagged under a low threshold, uncertain near it and passed under a high one.
func TestThreshold(t *testing.T) {
	s := newService(t)
	text := "Your plan is kind of silly."
	base := run(t, s, text, nil)
	if base.Score <= 2*services.UncertaintyBand || base.Score >= 1-2*services.UncertaintyBand {
		t.Fatalf("score %.3f leaves no room to move the threshold around it", base.Score)
	}
	for _, tc := range []struct {
		name      string
		threshold float64
		want      string
	}{
		{"below", base.Score - services.UncertaintyBand - 0.01, services.VerdictFlag},
		{"within", base.Score, services.VerdictUncertain},
		{"above", min(base.Score+services.UncertaintyBand+0.01, 1), services.VerdictPass},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, text, services.Params{"threshold": tc.threshold})
			if res.Verdict != tc.want {
				t.Errorf("threshold %.3f: verdict %s, want %s (score %.3f)", tc.threshold, res.Verdict, tc.want, res.Score)
			}
			if res.Score != base.Score {
				t.Errorf("threshold %.3f changed the score: %.4f, want %.4f", tc.threshold, res.Score, base.Score)
			}
		})
	}
}

// TestLongInput checks that a toxic sentence buried deep in a long benign text is found: the
// text is scored over windows with the maximum taken, never truncated.
func TestLongInput(t *testing.T) {
	s := newService(t)
	text := servicetest.Prose(60000) + " You are a pathetic, worthless idiot. " + servicetest.Prose(2000)
	res := run(t, s, text, nil)
	if res.Verdict != services.VerdictFlag {
		t.Errorf("verdict %s (score %.3f), want flag", res.Verdict, res.Score)
	}
	// The prose alone scores below the text with the insult. Its score is that of its best
	// window, whatever its length. v3 left that window uncertain (0.42); v4 flags it (0.70): a
	// 32-word window of short requests and greetings in three languages ("Could you summarize
	// ... Thanks for your help ... Bonjour, je voudrais ...") adds up weak cues that each
	// sentence alone keeps below 0.35. MODEL.md lists it among the known limits.
	if prose := run(t, s, servicetest.Prose(60000), nil); prose.Score >= res.Score {
		t.Errorf("prose alone: score %.3f, not below the %.3f of the text with an insult", prose.Score, res.Score)
	}
}

func FuzzRun(f *testing.F) {
	servicetest.Fuzz(f, newService(f), config())
}

func benchmarkRun(b *testing.B, n int) {
	s := newService(b)
	req := config().Request(s.Descriptor(), servicetest.Prose(n))
	b.SetBytes(int64(len(req.Payload.Value)))
	for b.Loop() {
		if _, err := s.Run(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRun1K(b *testing.B)   { benchmarkRun(b, 1000) }
func BenchmarkRun100K(b *testing.B) { benchmarkRun(b, 100000) }

func BenchmarkAdversarial(b *testing.B) {
	servicetest.Bench(b, newService(b), config(), 100000)
}

func TestLoadScoresLikeTheEmbeddedService(t *testing.T) {
	embedded := newService(t)
	loaded, err := Load(modelFile, lexiconFile)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, text := range []string{
		"Du bist ein dummer Idiot",
		`He wrote "you people are vermin" and I reported him.`,
		"Kill the process and restart the server.",
	} {
		want, err := embedded.Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: text}})
		if err != nil {
			t.Fatal(err)
		}
		got, err := loaded.Probability(ctx, text)
		if err != nil {
			t.Fatal(err)
		}
		if math.Round(got*10000)/10000 != want.Score {
			t.Errorf("%q: Load's probability %.4f, the embedded service's score %.4f", text, got, want.Score)
		}
	}
	for name, model := range map[string][]byte{"Garbage": []byte("not a model"), "Empty": nil} {
		if _, err := Load(model, lexiconFile); err == nil {
			t.Errorf("%s: Load accepted a broken model file", name)
		}
	}
}

// TestLoadDir checks that LoadDir reads the two files under the names the trainer writes, and
// fails when one is missing.
func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	if _, err := LoadDir(dir); err == nil {
		t.Fatal("LoadDir of an empty directory: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, ModelFileName), modelFile, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadDir(dir); err == nil {
		t.Fatal("LoadDir without the lexicon: no error")
	}
	if err := os.WriteFile(filepath.Join(dir, LexiconFileName), []byte(lexiconFile), 0o644); err != nil {
		t.Fatal(err)
	}
	svc, err := LoadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	text := "Du bist ein dummer Idiot"
	got, err := svc.Probability(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	want, err := newService(t).Probability(ctx, text)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Fatalf("LoadDir's probability %v, the embedded service's %v", got, want)
	}
}

// TestLoadRefusesOtherLists checks that a model refuses word lists other than those it was
// trained with.
func TestLoadRefusesOtherLists(t *testing.T) {
	if _, err := Load(modelFile, lexiconFile+"extra\tstrong\n"); err == nil {
		t.Fatal("Load accepted a lexicon the model was not trained with")
	}
}

// TestAllowedLabels checks which labels a prepared text may get: identity_hate only with a
// group named, profanity only with a word of the lexicon.
func TestAllowedLabels(t *testing.T) {
	idx := func(l string) int { return slices.Index(Labels, l) }
	for _, tc := range []struct {
		name, prepared  string
		hate, profanity bool
	}{
		{"Nothing", "no i don't eat that", false, false},
		{"Group", "zgrp should all be sent back", true, false},
		{"Lexicon", "shit zlexa i forgot my keys", false, true},
		{"Mild", "you jerk zlexb", false, true},
		{"Both", "zgrp are shit zlexa", true, true},
		{"TokenInsideWord", "xzgrp zlexax", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := allowedLabels(tc.prepared)
			if a[idx(LabelIdentityHate)] != tc.hate || a[idx(LabelProfanity)] != tc.profanity {
				t.Errorf("identity_hate %v, profanity %v; want %v, %v", a[idx(LabelIdentityHate)], a[idx(LabelProfanity)], tc.hate, tc.profanity)
			}
			for _, l := range []string{LabelInsult, LabelThreat, LabelHarassment, LabelSexual} {
				if !a[idx(l)] {
					t.Errorf("%s not allowed", l)
				}
			}
		})
	}
}

// TestNoGroupNoIdentityHate checks the label rule through Run: texts that name no group never
// get identity_hate, texts without profanity never get profanity.
func TestNoGroupNoIdentityHate(t *testing.T) {
	s := newService(t)
	for _, text := range []string{
		"shit, I forgot my keys",
		"No, I don't eat that.",
		"You are a stupid, useless moron.",
		"I am going to kill you and your whole family.",
	} {
		res := run(t, s, text, services.Params{"threshold": 0.05})
		if slices.Contains(res.Labels, LabelIdentityHate) {
			t.Errorf("%q: labels %v name identity_hate without a group", text, res.Labels)
		}
	}
	res := run(t, s, "I am going to kill you and your whole family.", services.Params{"threshold": 0.05})
	if slices.Contains(res.Labels, LabelProfanity) {
		t.Errorf("labels %v name profanity without any", res.Labels)
	}
}

// TestProfanityLabel checks that a strong swear word gets the profanity label whatever the
// verdict, and that a text without one gets no label when it passes.
func TestProfanityLabel(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name      string
		text      string
		profanity bool
	}{
		{"en/exclamation", "shit, I forgot my keys", true},
		{"en/aimed", "You fucking piece of shit, get out of my sight.", true},
		{"fr/exclamation", "Putain, quelle belle surprise ce matin.", true},
		{"pt/exclamation", "Porra, que show incrível foi esse ontem.", true},
		{"en/clean", "I forgot my keys at the office again.", false},
		{"it/clean", "Domani andiamo al mare con i bambini.", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, tc.text, nil)
			if got := slices.Contains(res.Labels, LabelProfanity); got != tc.profanity {
				t.Errorf("labels %v (verdict %s), want profanity=%v", res.Labels, res.Verdict, tc.profanity)
			}
			if res.Verdict == services.VerdictPass && !tc.profanity && len(res.Labels) > 0 {
				t.Errorf("verdict pass with labels %v", res.Labels)
			}
		})
	}
}
