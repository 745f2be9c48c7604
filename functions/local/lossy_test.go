package main

import (
	"fmt"
	"net/http"
	"sync"
	"testing"

	"github.com/sluice-api/sluice/internal/testutil/faultproxy"
)

// TestLostDynamoAnswers runs the local server on DynamoDB through a proxy that loses the
// answers of 15% of the writes after dynalite applied them (seeded), and drives it with keyed
// and unkeyed runs from several clients at once, each keyed run retried once by its client.
// Every answer must be a run (no 409 for a key no other request holds, no 5xx), every retry a
// duplicate, and GET /v1/usage must equal, to the character and the run, what the answers
// billed.
func TestLostDynamoAnswers(t *testing.T) {
	proxy := faultproxy.StartT(t, dynamoEndpoint, faultproxy.Config{Share: 0.15, Seed: 2026})
	prefix := fmt.Sprintf("lossy%d_", tablePrefixSeq.Add(1))
	s := seed(t, "", []string{keyA}, "-store", "dynamodb", "-dynamodb-endpoint", proxy.URL(), "-table-prefix", prefix,
		"-rate-limit", "100000", "-allowance", "100000000")

	const clients, runsEach = 4, 24
	type tally struct {
		runs, characters, duplicates, conflicts, failures int64
		bad                                               []string
	}
	var mu sync.Mutex
	var total tally
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			var mine tally
			for i := range runsEach {
				text := fmt.Sprintf("Run %d of client %d says hello to the world, %s.", i, c, marker)
				body := runBody(text, `[{"id":"lang","service":"routing.language.detect"},{"id":"tox","service":"security.toxicity.flag"}]`)
				var headers []string
				if i%2 == 0 {
					headers = []string{"Idempotency-Key", fmt.Sprintf("lossy-%d-%d", c, i)}
				}
				attempts := 1
				if headers != nil {
					attempts = 2 // the client retries a keyed run: the retry must be a duplicate
				}
				var trace any
				for a := range attempts {
					r, err := tryRun(s, keyA, body, headers...)
					switch {
					case err != nil:
						mine.bad = append(mine.bad, err.Error())
					case r.status == http.StatusConflict:
						mine.conflicts++
						mine.bad = append(mine.bad, fmt.Sprintf("409 for key %v: %s", headers, r.raw))
					case r.status != http.StatusOK:
						mine.failures++
						mine.bad = append(mine.bad, fmt.Sprintf("%d %s", r.status, r.raw))
					case a == 0 && r.body["status"] == "completed":
						mine.runs++
						trace = r.body["trace_id"]
						for _, l := range r.body["usage"].(map[string]any)["billed"].([]any) {
							mine.characters += int64(l.(map[string]any)["quantity"].(float64))
						}
					case a == 1 && r.body["status"] == "duplicate" && r.body["trace_id"] == trace:
						mine.duplicates++
					default:
						mine.bad = append(mine.bad, fmt.Sprintf("attempt %d: %s", a, r.raw))
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			total.runs += mine.runs
			total.characters += mine.characters
			total.duplicates += mine.duplicates
			total.conflicts += mine.conflicts
			total.failures += mine.failures
			total.bad = append(total.bad, mine.bad...)
		})
	}
	wg.Wait()
	if len(total.bad) > 0 {
		t.Fatalf("%d bad answers, first: %s", len(total.bad), total.bad[0])
	}
	u := s.do(t, http.MethodGet, "/v1/usage", keyA, "")
	if u.status != 200 {
		t.Fatalf("GET /v1/usage = %d %s", u.status, u.raw)
	}
	chars, runs := int64(u.body["characters"].(float64)), int64(u.body["runs"].(float64))
	st := proxy.Stats()
	t.Logf("%d runs (%d keyed, each retried: %d duplicates), %d characters billed; usage says %d runs, %d characters; "+
		"409s: %d, 5xx: %d; the proxy lost %d of %d successful writes (%v)",
		total.runs, clients*runsEach/2, total.duplicates, total.characters, runs, chars,
		total.conflicts, total.failures, st.Dropped, st.Writes, st.ByOp)
	if runs != total.runs || chars != total.characters {
		t.Fatalf("usage = %d runs, %d characters; the answers billed %d runs, %d characters", runs, chars, total.runs, total.characters)
	}
	if total.runs != clients*runsEach || total.duplicates != clients*runsEach/2 {
		t.Fatalf("%d runs and %d duplicates, want %d and %d", total.runs, total.duplicates, clients*runsEach, clients*runsEach/2)
	}
	if st.Dropped == 0 {
		t.Fatal("the proxy lost no answer: the test proves nothing")
	}
}
