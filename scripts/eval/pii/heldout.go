package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/pii"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// heldoutCase is one text of the held-out set: the values that must be removed and the
// look-alikes that must stay.
type heldoutCase struct {
	Lang string `json:"lang"`
	Kind string `json:"kind"`
	Text string `json:"text"`
	PII  []struct {
		Type  string `json:"type"`
		Value string `json:"value"`
	} `json:"pii"`
	Keep []string `json:"keep"`
}

// heldoutPath is the set, relative to the repository root.
var heldoutPath = filepath.Join("internal", "services", "pii", "testdata", "heldout.jsonl")

type tally struct{ n, ok int }

func (t *tally) add(ok bool) {
	t.n++
	if ok {
		t.ok++
	}
}

func (t tally) String() string {
	if t.n == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%% (%d/%d)", 100*float64(t.ok)/float64(t.n), t.ok, t.n)
}

// heldout runs every text through governance.pii.redact with the params a client would send
// (all entity types) and counts the values removed and the look-alikes kept.
func heldout(w io.Writer) error {
	path, err := repoPath(heldoutPath)
	if err != nil {
		return err
	}
	cases, err := evalkit.ReadJSONL[heldoutCase](path)
	if err != nil {
		return err
	}
	svc, err := pii.NewRedact()
	if err != nil {
		return err
	}
	params := services.Params{"entities": pii.Types(), "mask": "[REDACTED]"}
	structured, names, keep := map[string]*tally{}, map[string]*tally{}, map[string]*tally{}
	byType := map[string]*tally{}
	get := func(m map[string]*tally, k string) *tally {
		if m[k] == nil {
			m[k] = &tally{}
		}
		return m[k]
	}
	for _, c := range cases {
		res, err := svc.Run(context.Background(), services.Request{
			Payload: services.Payload{Type: services.TypeText, Value: c.Text}, Params: params,
		})
		if err != nil {
			return err
		}
		out := res.Payload.Value
		for _, p := range c.PII {
			removed := !strings.Contains(out, p.Value)
			if p.Type == pii.TypeName {
				get(names, c.Lang).add(removed)
				get(names, "all").add(removed)
			} else {
				get(structured, c.Lang).add(removed)
				get(structured, "all").add(removed)
			}
			get(byType, p.Type).add(removed)
			if !removed && showErrors > 0 {
				fmt.Fprintf(errOut, "heldout %s KEPT %s %q in %q\n", c.Lang, p.Type, p.Value, out)
			}
		}
		for _, v := range c.Keep {
			kept := strings.Contains(out, v)
			get(keep, c.Lang).add(kept)
			get(keep, "all").add(kept)
			if !kept && showErrors > 0 {
				fmt.Fprintf(errOut, "heldout %s REMOVED look-alike %q in %q\n", c.Lang, v, out)
			}
		}
	}
	langs := []string{}
	for l := range keep {
		if l != "all" {
			langs = append(langs, l)
		}
	}
	sort.Strings(langs)
	langs = append(langs, "all")
	var rows [][]string
	for _, l := range langs {
		rows = append(rows, []string{l, get(structured, l).String(), get(names, l).String(), get(keep, l).String()})
	}
	fmt.Fprintf(w, "### Held-out set (%s: %d chat and e-mail texts, redact with all entity types)\n\n", heldoutPath, len(cases))
	evalkit.Table(w, []string{"lang", "structured values removed", "names removed", "look-alikes kept"}, rows)
	fmt.Fprintln(w)
	var trows [][]string
	for _, t := range pii.Types() {
		trows = append(trows, []string{t, get(byType, t).String()})
	}
	evalkit.Table(w, []string{"type", "removed"}, trows)
	fmt.Fprintln(w)
	return nil
}
