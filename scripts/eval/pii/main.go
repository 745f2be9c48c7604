// Command pii scores the PII recognizers of internal/services/pii on public labeled data and
// prints markdown tables: span-level precision, recall and F1 per entity type on the presidio-research
// synthetic set (exact-span and overlap matching), and person-name precision and recall on
// WikiGold (I-PER mentions).
//
// Usage: go run ./scripts/eval/pii -data ../shared/data
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii"
)

// presidioTypes maps the synthetic set's entity types to Sluice entity types.
var presidioTypes = map[string]string{
	"PERSON":        pii.TypeName,
	"EMAIL_ADDRESS": pii.TypeEmail,
	"IBAN_CODE":     pii.TypeIBAN,
	"CREDIT_CARD":   pii.TypeCard,
	"PHONE_NUMBER":  pii.TypePhone,
	"IP_ADDRESS":    pii.TypeIP,
	"US_SSN":        pii.TypeID,
}

func main() {
	data := flag.String("data", "../shared/data", "directory of the shared labeled data")
	flag.Parse()
	if err := run(os.Stdout, *data); err != nil {
		fmt.Fprintln(os.Stderr, "eval pii:", err)
		os.Exit(1)
	}
}

func run(w io.Writer, data string) error {
	synth, err := evalPresidio(filepath.Join(data, "pii", "presidio-research", "synth_dataset_v2.json"))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "### presidio-research synth_dataset_v2 (1,500 synthetic samples)")
	fmt.Fprintln(w)
	printTable(w, synth, pii.Types())
	wiki, err := evalWikiGold(filepath.Join(data, "pii", "wikigold", "wikigold.conll.txt"))
	if err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "### WikiGold person names (I-PER mentions)")
	fmt.Fprintln(w)
	printTable(w, map[string]*score{pii.TypeName: wiki}, []string{pii.TypeName})
	return nil
}

// score counts matches for one entity type under exact and overlap matching.
type score struct {
	gold, pred             int
	predExact, predOverlap int // predicted spans that match a gold span
	goldExact, goldOverlap int // gold spans matched by a prediction
}

func (s *score) add(gold, pred []pii.Span) {
	s.gold += len(gold)
	s.pred += len(pred)
	for _, p := range pred {
		e, o := match(p, gold)
		s.predExact += b2i(e)
		s.predOverlap += b2i(o)
	}
	for _, g := range gold {
		e, o := match(g, pred)
		s.goldExact += b2i(e)
		s.goldOverlap += b2i(o)
	}
}

func match(s pii.Span, others []pii.Span) (exact, overlap bool) {
	for _, o := range others {
		if o.Type != s.Type {
			continue
		}
		if o.Start == s.Start && o.End == s.End {
			exact = true
		}
		if o.Start < s.End && s.Start < o.End {
			overlap = true
		}
	}
	return exact, overlap
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func f1(p, r float64) float64 {
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func printTable(w io.Writer, scores map[string]*score, order []string) {
	fmt.Fprintln(w, "| entity | gold | predicted | P exact | R exact | F1 exact | P overlap | R overlap | F1 overlap |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	var total score
	for _, t := range order {
		s, ok := scores[t]
		if !ok {
			continue
		}
		printRow(w, t, s)
		total.gold += s.gold
		total.pred += s.pred
		total.predExact += s.predExact
		total.predOverlap += s.predOverlap
		total.goldExact += s.goldExact
		total.goldOverlap += s.goldOverlap
	}
	if len(scores) > 1 {
		printRow(w, "**all**", &total)
	}
}

func printRow(w io.Writer, name string, s *score) {
	pe, re := ratio(s.predExact, s.pred), ratio(s.goldExact, s.gold)
	po, ro := ratio(s.predOverlap, s.pred), ratio(s.goldOverlap, s.gold)
	fmt.Fprintf(w, "| %s | %d | %d | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |\n",
		name, s.gold, s.pred, pe, re, f1(pe, re), po, ro, f1(po, ro))
}

type presidioSample struct {
	FullText string `json:"full_text"`
	Spans    []struct {
		EntityType string `json:"entity_type"`
		Start      int    `json:"start_position"`
		End        int    `json:"end_position"`
	} `json:"spans"`
}

func evalPresidio(path string) (map[string]*score, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read presidio set: %w", err)
	}
	var samples []presidioSample
	if err := json.Unmarshal(raw, &samples); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	scores := make(map[string]*score)
	for _, t := range pii.Types() {
		scores[t] = &score{}
	}
	for _, smp := range samples {
		// Offsets in the set count code points; Detect's count bytes.
		byteAt := runeOffsets(smp.FullText)
		gold := make(map[string][]pii.Span)
		for _, s := range smp.Spans {
			t, ok := presidioTypes[s.EntityType]
			if !ok {
				continue
			}
			gold[t] = append(gold[t], pii.Span{Type: t, Start: byteAt[s.Start], End: byteAt[s.End]})
		}
		pred := make(map[string][]pii.Span)
		for _, s := range pii.Detect(smp.FullText, pii.Types()) {
			pred[s.Type] = append(pred[s.Type], s)
		}
		for _, t := range pii.Types() {
			scores[t].add(gold[t], pred[t])
		}
	}
	return scores, nil
}

// runeOffsets maps each code-point index (0..n) of s to its byte offset.
func runeOffsets(s string) []int {
	out := make([]int, 0, utf8.RuneCountInString(s)+1)
	for i := range s {
		out = append(out, i)
	}
	return append(out, len(s))
}

// evalWikiGold scores names sentence by sentence; tokens are joined with single spaces.
func evalWikiGold(path string) (*score, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open wikigold: %w", err)
	}
	defer f.Close()
	var s score
	var b strings.Builder
	var gold []pii.Span
	inPer := false
	flush := func() {
		if b.Len() > 0 {
			s.add(gold, pii.Detect(b.String(), []string{pii.TypeName}))
		}
		b.Reset()
		gold, inPer = gold[:0], false
	}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "-DOCSTART-") {
			flush()
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		if i < 0 {
			return nil, fmt.Errorf("wikigold: malformed line %q", line)
		}
		tok, tag := line[:i], line[i+1:]
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		start := b.Len()
		b.WriteString(tok)
		if tag == "I-PER" {
			if inPer {
				gold[len(gold)-1].End = b.Len()
			} else {
				gold = append(gold, pii.Span{Type: pii.TypeName, Start: start, End: b.Len()})
			}
		}
		inPer = tag == "I-PER"
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read wikigold: %w", err)
	}
	flush()
	return &s, nil
}
