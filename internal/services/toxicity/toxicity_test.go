package toxicity

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
)

func newService(t testing.TB) *Service {
	t.Helper()
	s, err := New()
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	return s
}

func run(t testing.TB, s *Service, text string) services.Result {
	t.Helper()
	res, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: text},
		Params:  services.Params{"threshold": 0.5},
	})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return res
}

func TestRun(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct {
		name    string
		text    string
		verdict string
		label   string // a label that must be present ("" = none required)
	}{
		{"Empty", "", services.VerdictPass, ""},
		{"Neutral", "The weather in Paris is lovely this time of year.", services.VerdictPass, ""},
		{"Scunthorpe", "Scunthorpe United played in Sussex; the assessment of the classic cockpit passed.", services.VerdictPass, ""},
		{"Profanity", "This is fucking ridiculous", services.VerdictFlag, LabelProfanity},
		{"DirectedInsult", "you are a stupid bitch", services.VerdictFlag, LabelInsult},
		{"Leetspeak", "you b1tch", services.VerdictFlag, LabelInsult},
		{"RepeatedLetters", "shut up you biiiitch", services.VerdictFlag, LabelInsult},
		{"ZeroWidth", "you are a bi\u200btch", services.VerdictFlag, LabelInsult},
		{"Threat", "I will kill you", services.VerdictFlag, LabelThreat},
		{"ThreatDeserve", "you deserve to die", services.VerdictFlag, LabelThreat},
		{"IdentityHate", "Immigrants are vermin.", services.VerdictFlag, LabelIdentityHate},
		{"HateGroup", "I really hate muslims", services.VerdictFlag, LabelIdentityHate},
		{"Slur", "shut up faggot", services.VerdictFlag, LabelIdentityHate},
		{"MixedScripts", "Привет, how are you? 你好", services.VerdictPass, ""},
		{"NegativeNotToxic", "I hate pizza and long queues", services.VerdictPass, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, s, tc.text)
			if res.Verdict != tc.verdict {
				t.Fatalf("verdict = %s (score %.2f, labels %v), want %s", res.Verdict, res.Score, res.Labels, tc.verdict)
			}
			if tc.label != "" && !slices.Contains(res.Labels, tc.label) {
				t.Fatalf("labels = %v, want %s among them", res.Labels, tc.label)
			}
			if res.Score < 0 || res.Score > 1 {
				t.Fatalf("score %v outside [0,1]", res.Score)
			}
			if res.Payload.Value != tc.text {
				t.Fatalf("payload changed")
			}
		})
	}
}

func TestLabelsInDescriptor(t *testing.T) {
	s := newService(t)
	d := s.Descriptor()
	if !slices.IsSorted(d.Labels) {
		t.Fatalf("descriptor labels not sorted: %v", d.Labels)
	}
	seen := map[string]bool{}
	for _, text := range []string{
		"you stupid bitch", "I will kill you", "Jews are vermin", "what the fuck", "suck my cock",
		"piece of shit", "you dumbass motherfucker, I will shoot you",
	} {
		res := run(t, s, text)
		if !slices.IsSorted(res.Labels) {
			t.Errorf("%q: labels not sorted: %v", text, res.Labels)
		}
		for _, l := range res.Labels {
			seen[l] = true
			if !slices.Contains(d.Labels, l) {
				t.Errorf("%q: label %q not in descriptor %v", text, l, d.Labels)
			}
		}
	}
	for _, l := range d.Labels {
		if !seen[l] {
			t.Errorf("descriptor label %q never produced by the sample texts", l)
		}
	}
	if d.Kind != services.KindClassify || d.Version != 1 || d.Model.ID != "sluice-toxicity-lexicon-v1" {
		t.Errorf("descriptor = %+v", d)
	}
	if p := d.Params["threshold"]; p.Default != 0.5 || p.Minimum == nil || p.Maximum == nil {
		t.Errorf("threshold param = %+v", p)
	}
}

func TestThresholdParam(t *testing.T) {
	s := newService(t)
	res, err := s.Run(context.Background(), services.Request{
		Payload: services.Payload{Type: services.TypeText, Value: "damn"},
		Params:  services.Params{"threshold": 0.05},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Verdict != services.VerdictFlag {
		t.Fatalf("verdict = %s at threshold 0.05 (score %.2f), want flag", res.Verdict, res.Score)
	}
}

func TestCanceledContext(t *testing.T) {
	s := newService(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Run(ctx, services.Request{Payload: services.Payload{Type: services.TypeText, Value: strings.Repeat("word ", 20000)}})
	if err == nil {
		t.Fatal("Run with a canceled context succeeded")
	}
}

func TestConcurrent(t *testing.T) {
	s := newService(t)
	want := run(t, s, "I will kill you, you idiot")
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for range 20 {
				got := run(t, s, "I will kill you, you idiot")
				if got.Score != want.Score || !slices.Equal(got.Labels, want.Labels) {
					t.Errorf("concurrent result %v differs from %v", got, want)
				}
			}
		})
	}
	wg.Wait()
}

func benchText(n int) string {
	const para = "Thanks for the update, the report looks good but you idiot forgot the damn appendix. "
	return strings.Repeat(para, n/len(para)+1)[:n]
}

func BenchmarkRun1KB(b *testing.B)   { benchRun(b, benchText(1<<10)) }
func BenchmarkRun100KB(b *testing.B) { benchRun(b, benchText(100_000)) }

func benchRun(b *testing.B, text string) {
	s := newService(b)
	req := services.Request{Payload: services.Payload{Type: services.TypeText, Value: text}, Params: services.Params{"threshold": 0.5}}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := s.Run(context.Background(), req); err != nil {
			b.Fatal(err)
		}
	}
}
