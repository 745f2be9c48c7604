package main

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/shielddata"
)

// Budgets are the total weights of the sources, so that no source dominates by its size
// (CLINC150 alone has 15,000 utterances) and the calibrated score of a text the model knows
// little about leans to harmless, as most traffic is. Issue 32 added the kinds of examples/kinds/,
// the attacks appended to ordinary questions, real social-media text and more ordinary
// sentences of the seven languages; the git history gives the rounds before.
var budgets = map[string]float64{
	// attacks
	"llm-warden-train/attack": 0.18,
	"hand/attack-kinds":       0.60,
	"cyberseceval":            0.40,
	"bipia":                   0.30,
	"appended/attack":         0.15,
	"jbb":                     0.12,
	"hand/attack":             0.22,
	"hand/injected":           0.12,
	// harmless
	"llm-warden-train/benign": 0.60,
	"clinc150-train":          0.40,
	"banking77-train":         0.15,
	"hand/benign-kinds":       0.90,
	"bipia-email":             0.22,
	"cyberseceval-system":     0.10,
	"appended/benign":         0.10,
	"social":                  0.60,
	"multijail":               0.15,
	"lingua":                  0.30,
	"lingua7":                 0.50,
	"hand/benign":             0.60,
	"hand/context":            0.15,
	// the hand-written examples of examples/more/ (languages beyond the seven above, and more
	// harmless look-alikes), attacks, then harmless texts
	"hand/attack-more": 0.18,
	"hand/benign-more": 0.30,
	// examples/extra/: short harmless requests in every language, long harmless documents, then
	// the attacks hidden in documents
	"hand/benign-extra":   0.32,
	"hand/context-extra":  0.30,
	"hand/injected-extra": 0.10,
	// examples/r7/: English attacks, then harmless English look-alikes full of trigger words
	"hand/attack-r7": 0.05,
	"hand/benign-r7": 0.22,
	// examples/r9/: harmless role-play and persona requests
	"hand/benign-r9": 0.10,
	// examples/r10ml/: the kinds of examples/r7/ in bn ko ru th tr vi zh, then harmless twins
	"hand/attack-r10ml": 0.04,
	"hand/benign-r10ml": 0.12,
	// examples/r12/: attacks hidden in long English task prompts, then the long harmless task
	// prompts and personas
	"hand/attack-r12": 0.03,
	"hand/benign-r12": 0.30,
	// issue 42: real text by strangers. Attacks people typed in the Gandalf game (outside the
	// dev share); human-written requests (the self-instruct seeds) and WildGuardMix's unharmful
	// prompts (outside the dev share); and the same texts machine-translated into es fr it pt by
	// Apertium (translated/, make shield-translations), attacks then harmless texts.
	"gandalf":             0.60,
	"self-instruct-seeds": 0.50,
	"wildguardmix":        0.70,
	"apertium/attack":     0.30,
	"apertium/benign":     0.40,
	// harmless texts that quote, define, translate, decode or test a real attack (mention.go),
	// and short real attacks dropped before or after ordinary questions
	"mention":       0.35,
	"appended-real": 0.15,
}

// sevenLangs are the languages the shield is written for.
var sevenLangs = []string{"de", "en", "es", "fr", "it", "nl", "pt"}

// Long documents: how many per language, their budgets, and the seed of their construction.
const (
	longPerLang   = 40
	longBudget    = 0.5
	longInjBudget = 0.05
	longSeed      = 13
)

// load reads every training source and weighs its texts.
func load(cfg config) ([]doc, error) {
	data := cfg.data
	budget := maps.Clone(budgets)
	budget["long"], budget["long-injected"] = longBudget, longInjBudget
	var all []doc
	add := func(name string, ds []shielddata.Doc, group func(shielddata.Doc) string) error {
		b, ok := budget[name]
		if !ok {
			return fmt.Errorf("no budget for %s", name)
		}
		if len(ds) == 0 {
			return fmt.Errorf("source %s is empty", name)
		}
		for _, d := range ds {
			if d.Attack {
				d.Labels = inferLabels(d)
			}
			all = append(all, doc{Doc: d, weight: b / float64(len(ds)), group: d.Source + "/" + group(d)})
		}
		return nil
	}
	byID := func(d shielddata.Doc) string { return d.ID }
	// byAttack groups a document an attack was hidden in (ID "attack+context") by its attack.
	byAttack := func(d shielddata.Doc) string { a, _, _ := strings.Cut(d.ID, "+"); return a }
	// byLine groups the variants of one template line.
	byLine := func(d shielddata.Doc) string { l, _, _ := strings.Cut(d.ID, "#"); return l }

	warden, err := shielddata.LLMWarden(data, "train")
	if err != nil {
		return nil, err
	}
	var wa, wb []shielddata.Doc
	seen := map[string]bool{}
	for _, d := range warden {
		if seen[d.Text] { // train.csv repeats some prompts
			continue
		}
		seen[d.Text] = true
		if d.Attack {
			wa = append(wa, d)
		} else {
			wb = append(wb, d)
		}
	}
	if err := add("llm-warden-train/attack", wa, byID); err != nil {
		return nil, err
	}
	if err := add("llm-warden-train/benign", wb, byID); err != nil {
		return nil, err
	}

	// CyberSecEval: the training half (shielddata splits it; the evaluation reads the other
	// half), its attacks and its system prompts (harmless system-style text).
	cyber, err := shielddata.CyberSecEvalRows(data)
	if err != nil {
		return nil, err
	}
	var ca, cs []shielddata.Doc
	systems := map[string]bool{}
	for _, r := range cyber {
		if r.HeldOut {
			continue
		}
		ca = append(ca, r.Doc)
		if !systems[r.SystemPrompt] {
			systems[r.SystemPrompt] = true
			cs = append(cs, shielddata.Doc{ID: r.ID, Source: "cyberseceval-system", Lang: r.Lang, Text: r.SystemPrompt})
		}
	}
	if err := add("cyberseceval", ca, byID); err != nil {
		return nil, err
	}
	if err := add("cyberseceval-system", cs, byID); err != nil {
		return nil, err
	}
	// BIPIA train: its attacks inserted into its training e-mails, and the clean e-mails. The
	// attack instructions are not trained on alone: with sentence units the instruction's own
	// window is the same inside an e-mail as alone, so it cannot be harmless alone and an attack
	// inside.
	emails, err := shielddata.BIPIAEmails(data, "train")
	if err != nil {
		return nil, err
	}
	var attacks []shielddata.Attack
	for _, kind := range []string{"text", "code"} {
		a, err := shielddata.BIPIAAttacks(data, kind, "train")
		if err != nil {
			return nil, err
		}
		attacks = append(attacks, a...)
	}
	var clean []shielddata.Doc
	for _, e := range emails {
		clean = append(clean, shielddata.Doc{ID: e.ID, Source: "bipia-email", Lang: "en", Text: e.Context})
	}
	if err := add("bipia-email", clean, byID); err != nil {
		return nil, err
	}
	// Group by attack, so that calibration folds hold attacks no fold member has seen.
	if err := add("bipia", shielddata.BIPIAInjected(emails, attacks), func(d shielddata.Doc) string { _, a, _ := strings.Cut(d.ID, "+"); return a }); err != nil {
		return nil, err
	}

	kindA, kindN, err := kindExamples()
	if err != nil {
		return nil, err
	}
	if err := add("hand/attack-kinds", kindA, byLine); err != nil {
		return nil, err
	}
	if err := add("hand/benign-kinds", kindN, byLine); err != nil {
		return nil, err
	}

	jbb, err := shielddata.JBB(data)
	if err != nil {
		return nil, err
	}
	if err := add("jbb", jbb, byID); err != nil {
		return nil, err
	}

	clinc, err := shielddata.CLINC(data, "train", "oos_train")
	if err != nil {
		return nil, err
	}
	if err := add("clinc150-train", clinc, byID); err != nil {
		return nil, err
	}
	withAttack, withRemark := appended(clinc, kindA, kindN)
	if err := add("appended/attack", withAttack, byID); err != nil {
		return nil, err
	}
	if err := add("appended/benign", withRemark, byID); err != nil {
		return nil, err
	}
	bankingAll, err := shielddata.Banking77(data, "train")
	if err != nil {
		return nil, err
	}
	var banking []shielddata.Doc
	for _, d := range bankingAll {
		if !shielddata.BankingDev(d) { // the rest is kept for calibration (eval -dev)
			banking = append(banking, d)
		}
	}
	social, err := socialNegatives(data)
	if err != nil {
		return nil, err
	}
	if err := add("social", social, byID); err != nil {
		return nil, err
	}
	if err := add("banking77-train", banking, byID); err != nil {
		return nil, err
	}
	mj, _, err := shielddata.MultiJail(data)
	if err != nil {
		return nil, err
	}
	if err := add("multijail", mj, func(d shielddata.Doc) string { id, _, _ := strings.Cut(d.ID, "/"); return id }); err != nil {
		return nil, err
	}
	lingua, _, err := shielddata.Lingua(data, shielddata.LinguaLangs)
	if err != nil {
		return nil, err
	}
	if err := add("lingua", lingua, byID); err != nil {
		return nil, err
	}
	// The same sentences of the shield's seven languages once more, with a budget of their own:
	// the kinds of examples/kinds/ make most short texts of a language other than English
	// attacks, and ordinary sentences of the language must outweigh that.
	var lingua7 []shielddata.Doc
	for _, d := range lingua {
		if slices.Contains(sevenLangs, d.Lang) {
			lingua7 = append(lingua7, d)
		}
	}
	if err := add("lingua7", lingua7, byID); err != nil {
		return nil, err
	}

	hand, err := handwritten()
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"hand/attack", "hand/injected", "hand/benign", "hand/context", "hand/attack-more", "hand/benign-more", "hand/benign-extra", "hand/context-extra", "hand/injected-extra", "hand/attack-r7", "hand/benign-r7", "hand/benign-r9", "hand/attack-r10ml", "hand/benign-r10ml", "hand/attack-r12", "hand/benign-r12"} {
		if err := add(name, hand[name], byLine); err != nil {
			return nil, err
		}
	}

	gandalf, _, err := shielddata.Gandalf(data)
	if err != nil {
		return nil, err
	}
	if err := add("gandalf", gandalf, byID); err != nil {
		return nil, err
	}
	seeds, _, err := shielddata.SelfInstruct(data)
	if err != nil {
		return nil, err
	}
	if err := add("self-instruct-seeds", seeds, byID); err != nil {
		return nil, err
	}
	wild, _, _, err := shielddata.WildGuardMix(data)
	if err != nil {
		return nil, err
	}
	if err := add("wildguardmix", wild, byID); err != nil {
		return nil, err
	}
	ta, tb, err := translated(cfg.translated)
	if err != nil {
		return nil, err
	}
	// A text and its translations share a group, so no calibration fold sees one and scores the
	// other.
	bySource := func(d shielddata.Doc) string { _, id, _ := strings.Cut(d.ID, "/"); return id }
	if err := add("apertium/attack", ta, bySource); err != nil {
		return nil, err
	}
	if err := add("apertium/benign", tb, bySource); err != nil {
		return nil, err
	}
	frames, err := readFrames()
	if err != nil {
		return nil, err
	}
	quoted := append(slices.Clone(gandalf), ta...)
	for _, a := range kindA {
		if a.Lang == "de" {
			quoted = append(quoted, a)
		}
	}
	if err := add("mention", mentions(frames, quoted, append(slices.Clone(seeds), clinc...)), byLine); err != nil {
		return nil, err
	}
	if err := add("appended-real", appendedReal(clinc, gandalf), byID); err != nil {
		return nil, err
	}

	// Long harmless documents in one language, and attacks hidden in some of them.
	langs := longDocLangs()
	ll, _, err := shielddata.Lingua(data, langs)
	if err != nil {
		return nil, err
	}
	long := longDocs(ll, langs, longPerLang, longSeed)
	if err := add("long", long, byID); err != nil {
		return nil, err
	}
	if err := add("long-injected", longInjected(long, hand["hand/attack"], append(slices.Clone(kindA), ca...)), byAttack); err != nil {
		return nil, err
	}
	return all, nil
}

// handwritten expands the hand-written examples: attacks, harmless texts, documents, and every
// hidden attack (I lines) inserted into documents of its language and into BIPIA e-mails.
func handwritten() (map[string][]shielddata.Doc, error) {
	exs, err := readExamples()
	if err != nil {
		return nil, err
	}
	out := map[string][]shielddata.Doc{}
	contexts := map[string][]shielddata.Doc{}
	var hidden, hiddenExtra []example
	contextsExtra := map[string][]shielddata.Doc{}
	for _, e := range exs {
		if e.dir == "kinds" { // read by kindExamples
			continue
		}
		if e.dir == "extra" {
			// The examples of examples/extra/ (-extra-examples) have budgets of their own too;
			// their documents and hidden attacks are paired below, apart from the others.
			for _, d := range e.docs("extra/", "hand-extra") {
				switch e.typ {
				case 'N':
					out["hand/benign-extra"] = append(out["hand/benign-extra"], d)
				case 'C':
					out["hand/context-extra"] = append(out["hand/context-extra"], d)
					contextsExtra[e.lang] = append(contextsExtra[e.lang], d)
				case 'I':
				default:
					return nil, fmt.Errorf("examples/extra/%s.txt:%d: only N, C and I lines are read there", e.lang, e.line)
				}
			}
			if e.typ == 'I' {
				hiddenExtra = append(hiddenExtra, e)
			}
			continue
		}
		if slices.Contains([]string{"r7", "r9", "r10ml", "r12"}, e.dir) {
			// The examples of examples/r7/, r9/ (harmless texts only), r10ml/ and r12/ have
			// budgets of their own as well.
			round := e.dir
			if round == "r9" && e.typ != 'N' {
				return nil, fmt.Errorf("examples/r9/%s.txt:%d: only N lines are read there", e.lang, e.line)
			}
			for _, d := range e.docs(round+"/", "hand-"+round) {
				switch e.typ {
				case 'A':
					d.Attack = true
					out["hand/attack-"+round] = append(out["hand/attack-"+round], d)
				case 'N':
					out["hand/benign-"+round] = append(out["hand/benign-"+round], d)
				default:
					return nil, fmt.Errorf("examples/%s/%s.txt:%d: only A and N lines are read there", round, e.lang, e.line)
				}
			}
			continue
		}
		if e.dir == "more" {
			// The examples of examples/more/ have budgets of their own (-more-examples), so the
			// other examples keep their weights; they hold no documents.
			for _, d := range e.docs("more/", "hand-more") {
				switch e.typ {
				case 'A':
					d.Attack = true
					out["hand/attack-more"] = append(out["hand/attack-more"], d)
				case 'N':
					out["hand/benign-more"] = append(out["hand/benign-more"], d)
				default:
					return nil, fmt.Errorf("examples/more/%s.txt:%d: only A and N lines are read there", e.lang, e.line)
				}
			}
			continue
		}
		for _, d := range e.docs("", "hand") {
			switch e.typ {
			case 'A', 'I':
				d.Attack = true
				out["hand/attack"] = append(out["hand/attack"], d)
			case 'N':
				if e.kind == "message" { // a weight of their own, so the look-alikes keep theirs
					out["hand/message"] = append(out["hand/message"], d)
					break
				}
				out["hand/benign"] = append(out["hand/benign"], d)
			case 'C':
				out["hand/context"] = append(out["hand/context"], d)
				contexts[e.lang] = append(contexts[e.lang], d)
			}
		}
		if e.typ == 'I' {
			hidden = append(hidden, e)
		}
	}
	for _, e := range hidden {
		ctxs := contexts[e.lang]
		for v, t := range e.texts {
			for k, c := range ctxs {
				if (v+k)%2 != 0 { // half of the pairs are enough
					continue
				}
				d := hide(c.Text, t, e.labels, v+k)
				d.ID = e.lang + strconv.Itoa(e.line) + "#" + strconv.Itoa(v) + "/" + c.ID
				d.Source, d.Lang = "hand-injected", e.lang
				out["hand/injected"] = append(out["hand/injected"], d)
			}
		}
	}
	// hand/injected-extra: every hidden attack of a language (of examples/ and examples/extra/)
	// in the documents of examples/extra/ of that language, and those of examples/extra/ in the
	// documents of examples/ too, half of the pairs each, so that the new documents are seen
	// both clean and with an attack inside.
	for _, e := range append(slices.Clone(hidden), hiddenExtra...) {
		ctxs := slices.Clone(contextsExtra[e.lang])
		if e.dir == "extra" {
			ctxs = append(ctxs, contexts[e.lang]...)
		}
		for v, t := range e.texts {
			for k, c := range ctxs {
				if (v+k)%2 != 0 {
					continue
				}
				d := hide(c.Text, t, e.labels, v+k)
				d.ID = "extra/" + e.lang + strconv.Itoa(e.line) + "#" + strconv.Itoa(v) + "/" + c.ID
				if e.dir == "extra" {
					d.ID = "extra/" + d.ID
				}
				d.Source, d.Lang = "hand-injected-extra", e.lang
				out["hand/injected-extra"] = append(out["hand/injected-extra"], d)
			}
		}
	}
	return out, nil
}

// docs returns one document per variant of e, from source, with the id prefix + language + line
// + "#" + variant: the group is the template line, so its variants never straddle a calibration
// fold.
func (e example) docs(prefix, source string) []shielddata.Doc {
	out := make([]shielddata.Doc, len(e.texts))
	for v, t := range e.texts {
		id := prefix + e.lang + strconv.Itoa(e.line) + "#" + strconv.Itoa(v)
		out[v] = shielddata.Doc{ID: id, Source: source, Lang: e.lang, Text: t, Kind: e.kind, Labels: e.labels}
	}
	return out
}

// hide inserts attack into context (shielddata.Insert, at one of three places by where) and
// labels the result with the attack's labels and indirect_injection, sorted and unique.
func hide(context, attack string, labels []string, where int) shielddata.Doc {
	d := shielddata.Insert(context, attack, where)
	d.Labels = append(slices.Clone(labels), shielddata.IndirectInjection)
	slices.Sort(d.Labels)
	d.Labels = slices.Compact(d.Labels)
	return d
}

// Label rules for attacks whose source gives no kind (llm-warden) or only some kinds: each adds
// its label when it matches the lower-cased text.
var labelRules = []struct {
	label string
	re    *regexp.Regexp
}{
	{shielddata.InstructionOverride, regexp.MustCompile(`\b(ignore|disregard|forget|override|bypass|neglect)\b.{0,60}\b(instructions?|rules|guidelines|directives|policies|programming|prompt|above|previous|prior)\b`)},
	{shielddata.PromptLeak, regexp.MustCompile(`\b(system (prompt|message)|initial (prompt|instructions)|original instructions|hidden instructions|(reveal|repeat|print|show|output)\b.{0,30}\b(prompt|instructions)|password|secret key)\b`)},
	{shielddata.FakeSystemMessage, regexp.MustCompile(`\[(system|admin|sys)\b|<\|?(system|im_start)|#+\s*(system|instruction)|\bsystem (mode|override|update|notice)\b|\b(developer|admin(istrator)?|god|debug|maintenance) mode (enabled|activated|on)\b`)},
	{shielddata.RolePlay, regexp.MustCompile(`\b(pretend|act as|roleplay|role-play|role play|you are now|stay in character|persona|simulate|dan|do anything now|jailbreak|developer mode|hypothetical|imagine)\b`)},
	{shielddata.Obfuscation, regexp.MustCompile(`\b(base64|rot13|hex(adecimal)?|caesar|cipher|morse|leetspeak|reverse(d)? (order|text)|encode|decode)\b`)},
}

// inferLabels returns d's labels with those the rules find; an attack with none is role play
// (the commonest kind of in-the-wild jailbreak).
func inferLabels(d shielddata.Doc) []string {
	labels := slices.Clone(d.Labels)
	low := []byte(d.Text)
	for i, c := range low {
		if 'A' <= c && c <= 'Z' {
			low[i] = c + 'a' - 'A'
		}
	}
	for _, r := range labelRules {
		if r.re.Match(low) {
			labels = append(labels, r.label)
		}
	}
	if len(labels) == 0 {
		labels = []string{shielddata.RolePlay}
	}
	slices.Sort(labels)
	return slices.Compact(labels)
}
