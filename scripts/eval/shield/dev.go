package main

import (
	"fmt"
	"os"
	"sort"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// devSets returns the development sets: the hand-written dev set, the dev split of the
// labelled social-media sample (label injection), CLINC150 val and the banking77 training
// utterances the trainer keeps out (shielddata.BankingDev).
func devSets(data string) ([]set, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	own, err := shielddata.Dev(root)
	if err != nil {
		return nil, err
	}
	recs, err := devset.Load(data)
	if err != nil {
		return nil, err
	}
	var social []shielddata.Doc
	for _, r := range recs {
		if r.Split == devset.Dev {
			social = append(social, shielddata.Doc{ID: fmt.Sprint(r.File, r.Line), Source: "social", Lang: r.Lang, Text: r.Text, Attack: r.Injection})
		}
	}
	val, err := shielddata.CLINC(data, "val", "oos_val")
	if err != nil {
		return nil, err
	}
	bank, err := shielddata.Banking77(data, "train")
	if err != nil {
		return nil, err
	}
	var bankDev []shielddata.Doc
	for _, d := range bank {
		if shielddata.BankingDev(d) {
			bankDev = append(bankDev, d)
		}
	}
	_, gandalfDev, err := shielddata.Gandalf(data)
	if err != nil {
		return nil, err
	}
	_, userOriented, err := shielddata.SelfInstruct(data)
	if err != nil {
		return nil, err
	}
	_, wildDev, wildHarmful, err := shielddata.WildGuardMix(data)
	if err != nil {
		return nil, err
	}
	kind := func(d shielddata.Doc) string { return d.Kind }
	return []set{
		{name: "Gandalf, dev share (real attacks)", docs: gandalfDev},
		{name: "dev set (hand-written, 7 languages)", docs: own, group: kind},
		{name: "social-media dev split", docs: social},
		{name: "CLINC150 val + oos_val", docs: val},
		{name: "banking77 train, kept out", docs: bankDev},
		{name: "self-instruct user-oriented (eval-only)", docs: userOriented},
		{name: "WildGuardMix unharmful, dev share", docs: wildDev},
		{name: "WildGuardMix harmful (not attacks; info)", docs: wildHarmful},
	}, nil
}

// runDev prints the development figures: per set, recall and false-positive rate at the
// threshold 0.5 and at flag (0.6), and the share flagged; per kind of the dev set, the same.
func runDev(data string, score scorer) error {
	sets, err := devSets(data)
	if err != nil {
		return err
	}
	var rows [][]string
	for _, s := range sets {
		var at5, atFlag, atUnc evalkit.Binary
		by := map[string]*[2]evalkit.Binary{}
		for _, d := range s.docs {
			res, err := score(d.Text)
			if err != nil {
				return err
			}
			at5.Add(res.Score >= services.DefaultThreshold, d.Attack)
			flag := res.Verdict == services.VerdictFlag
			atFlag.Add(flag, d.Attack)
			atUnc.Add(res.Verdict != services.VerdictPass, d.Attack)
			if s.group != nil {
				k := s.group(d)
				if by[k] == nil {
					by[k] = &[2]evalkit.Binary{}
				}
				by[k][0].Add(res.Score >= services.DefaultThreshold, d.Attack)
				by[k][1].Add(flag, d.Attack)
			}
		}
		rows = append(rows, append(devRow(s.name, at5, atFlag), devUnc(atUnc)...))
		if s.group != nil {
			keys := make([]string, 0, len(by))
			for k := range by {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				rows = append(rows, append(devRow("  "+k, by[k][0], by[k][1]), "", ""))
			}
		}
	}
	evalkit.Table(os.Stdout, []string{"dev set", "n", "attacks", "recall@0.5", "recall@flag", "F1@flag", "FPR@0.5", "FPR@flag", "recall@flag-or-unc", "FPR@flag-or-unc"}, rows)
	return nil
}

func devRow(name string, at5, atFlag evalkit.Binary) []string {
	f := func(ok bool, v float64) string {
		if !ok {
			return "-"
		}
		return evalkit.F3(v)
	}
	pos, neg := at5.TP+at5.FN, at5.FP+at5.TN
	return []string{name, fmt.Sprint(at5.N()), fmt.Sprint(pos), f(pos > 0, at5.Recall()), f(pos > 0, atFlag.Recall()),
		f(pos > 0 && neg > 0, atFlag.F1()), f(neg > 0, at5.FPR()), f(neg > 0, atFlag.FPR())}
}

// devUnc returns recall and false-positive rate when a verdict of flag or uncertain counts.
func devUnc(m evalkit.Binary) []string {
	pos, neg := m.TP+m.FN, m.FP+m.TN
	r, f := "-", "-"
	if pos > 0 {
		r = evalkit.F3(m.Recall())
	}
	if neg > 0 {
		f = evalkit.F3(m.FPR())
	}
	return []string{r, f}
}
