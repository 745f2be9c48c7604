package dashboard

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/store"
)

func TestChart(t *testing.T) {
	var days store.Days
	days[0], days[9], days[29] = 12_000, 1, 500 // the 30th is after "today"
	c := newChart(time.Date(2026, 11, 10, 15, 0, 0, 0, time.UTC), days)
	if len(c.Days) != 30 || c.MaxLabel != "20k" || c.Total != 12_501 || c.Month != "November 2026" {
		t.Fatalf("chart: %d days, max %s, total %d, %s", len(c.Days), c.MaxLabel, c.Total, c.Month)
	}
	if d := c.Days[0]; d.Label != "Nov 1" || d.Future || d.Y < c.Top || d.Y+d.H != c.Bottom || d.H <= 0 {
		t.Errorf("day 1 = %+v", d)
	}
	if d := c.Days[9]; d.H < 1 {
		t.Errorf("a day with one character has height %v: it must show", d.H)
	}
	if !c.Days[10].Future || c.Days[9].Future {
		t.Error("days after today must be marked future, today not")
	}
	for i, d := range c.Days {
		if d.X < 0 || d.X+d.W > 100 || d.W <= 0 {
			t.Errorf("day %d bar at %v%%..%v%% leaves the width", i+1, d.X, d.X+d.W)
		}
		if i > 0 && d.X <= c.Days[i-1].X+c.Days[i-1].W {
			t.Errorf("day %d bar overlaps the day before", i+1)
		}
	}
	for i, tk := range c.Ticks {
		if day := c.Days[7*i]; math.Abs(tk.X-(day.X+day.W/2)) > 1e-9 || tk.Label != fmt.Sprint(7*i+1) {
			t.Errorf("tick %d (%s) at %v%%, day %d's bar centred at %v%%", i, tk.Label, tk.X, 7*i+1, day.X+day.W/2)
		}
	}
	if len(c.Ticks) != 5 || c.Top <= 0 || c.Bottom >= c.Height {
		t.Errorf("%d ticks; plot from %v to %v px of %v", len(c.Ticks), c.Top, c.Bottom, c.Height)
	}
	if got := newChart(time.Date(2027, 2, 28, 0, 0, 0, 0, time.UTC), store.Days{}); len(got.Days) != 28 || got.MaxLabel != "10" {
		t.Errorf("February: %d days, max %s", len(got.Days), got.MaxLabel)
	}
	for _, tc := range []struct {
		in   int64
		want int64
	}{{0, 10}, {7, 10}, {11, 20}, {20, 20}, {21, 50}, {51, 100}, {12_000, 20_000}, {999_999, 1_000_000}} {
		if got := niceCeil(tc.in); got != tc.want {
			t.Errorf("niceCeil(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
	for in, want := range map[int64]string{950: "950", 20_000: "20k", 1_500: "1.5k", 2_000_000: "2M", 5_000_000_000: "5G"} {
		if got := shortNum(in); got != want {
			t.Errorf("shortNum(%d) = %q, want %q", in, got, want)
		}
	}
}

// unquoteShell reads one single-quoted shell word as a POSIX shell would ('\” included).
func unquoteShell(s string) (string, bool) {
	var b strings.Builder
	for s != "" {
		switch {
		case strings.HasPrefix(s, "'"):
			end := strings.IndexByte(s[1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(s[1 : 1+end])
			s = s[2+end:]
		case strings.HasPrefix(s, `\'`):
			b.WriteByte('\'')
			s = s[2:]
		default:
			return "", false
		}
	}
	return b.String(), true
}

func TestCurl(t *testing.T) {
	body := []byte(`{"input":{"type":"text","value":"it's $HOME and ` + "`id`" + `"}}`)
	c := curl("https://x.example/prod", body)
	if !strings.HasPrefix(c, "curl -s https://x.example/prod/v1/run \\\n") || !strings.Contains(c, `"Authorization: Bearer $SLUICE_KEY"`) {
		t.Fatalf("curl = %s", c)
	}
	arg := c[strings.Index(c, "-d ")+3:]
	got, ok := unquoteShell(arg)
	if !ok || got != string(body) {
		t.Fatalf("the shell reads the body as %q (%v), want %q", got, ok, body)
	}
}

// FuzzPlaygroundForm feeds arbitrary form values to the playground's request builder: it never
// panics, and whatever it builds is JSON that carries the text unchanged and a curl command
// whose body the shell reads back exactly.
func FuzzPlaygroundForm(f *testing.F) {
	f.Add("Hi, I am Jane Doe", "governance.pii.redact", "", "{\"mask\":\"x\"}", "", "")
	f.Add("it's", "s", "id", "[1]", "score_gte", "0.5")
	f.Add("'\\''", "s", "", "", "verdict:flag", "")
	f.Add("\x00\xff", "", "", "{", "score_lte", "NaN")
	reg := testRegistry(f)
	f.Fuzz(func(t *testing.T, text, service, id, params, stop, score string) {
		req, msg := buildRun(text, []stepForm{{N: 1, ID: id, Service: service, Params: params, StopIf: stop, StopScore: score}}, reg)
		if msg != "" {
			return
		}
		body, err := json.Marshal(req)
		if err != nil {
			t.Fatalf("Marshal: %v", err)
		}
		var back runRequest
		if err := json.Unmarshal(body, &back); err != nil {
			t.Fatalf("Unmarshal: %v", err)
		}
		if utf8.ValidString(text) && back.Input.Value != text {
			t.Fatalf("text %q came back as %q", text, back.Input.Value)
		}
		arg := curl("http://h", body)
		got, ok := unquoteShell(arg[strings.Index(arg, "-d ")+3:])
		if !ok || got != string(body) {
			t.Fatalf("curl quotes %q as something else", body)
		}
	})
}
