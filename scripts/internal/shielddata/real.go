package shielddata

import (
	"strconv"
	"strings"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// Development shares of the real sets split here (issue 42): the part of each that training
// never reads and that settings are chosen on.
const (
	GandalfDev     = 0.25
	WildGuardDev   = 0.25
	SelfInstructID = "seed_tasks"
)

// normKey is the key a real text is split by: lower case, spaces collapsed, so that a prompt a
// player typed twice with other spacing or case falls on one side of the split.
func normKey(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(s)), " ")
}

// Gandalf reads jailbreak/gandalf-train: attacks people typed in the Gandalf game to make a model
// ignore its instructions or leak its password. A prompt is in dev when
// Unit("gandalf-dev/" + its normalized text) < GandalfDev; repeats stay together.
func Gandalf(data string) (train, dev []Doc, err error) {
	p, err := evalkit.Require(data, "jailbreak", "gandalf-train", "gandalf_train.jsonl")
	if err != nil {
		return nil, nil, err
	}
	rows, err := evalkit.ReadJSONL[struct {
		Text string `json:"text"`
		Lang string `json:"lang"`
	}](p)
	if err != nil {
		return nil, nil, err
	}
	for i, r := range rows {
		if strings.TrimSpace(r.Text) == "" {
			continue
		}
		d := Doc{ID: "g" + strconv.Itoa(i), Source: "gandalf", Lang: r.Lang, Text: r.Text, Attack: true}
		if Unit("gandalf-dev/"+normKey(r.Text)) < GandalfDev {
			dev = append(dev, d)
		} else {
			train = append(train, d)
		}
	}
	return train, dev, nil
}

// SelfInstruct reads the human-written self-instruct requests (all harmless): the 175 seed tasks,
// which may be trained on, and the 252 user-oriented ones, which their authors ask to be used for
// evaluation only. A request with an input is the instruction, a blank line and the input.
func SelfInstruct(data string) (seeds, userOriented []Doc, err error) {
	p, err := evalkit.Require(data, "jailbreak", "self-instruct-human-prompts", "benign_prompts.jsonl")
	if err != nil {
		return nil, nil, err
	}
	rows, err := evalkit.ReadJSONL[struct {
		ID    string `json:"id"`
		Set   string `json:"set"`
		Text  string `json:"text"`
		Input string `json:"input"`
	}](p)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range rows {
		text := r.Text
		if strings.TrimSpace(r.Input) != "" {
			text += "\n\n" + r.Input
		}
		d := Doc{ID: r.ID, Source: "self-instruct", Lang: "en", Text: text, Kind: r.Set}
		if r.Set == SelfInstructID {
			seeds = append(seeds, d)
		} else {
			userOriented = append(userOriented, d)
		}
	}
	return seeds, userOriented, nil
}

// WildGuardMix reads the WildGuardMix sample. Its label is about harm, not about attacks on the
// instructions, so only the unharmful prompts are read as harmless text (plain requests and
// harmless role-play framings); the harmful ones are returned apart, for reporting. An unharmful
// prompt is in dev when Unit("wildguard-dev/" + id) < WildGuardDev.
func WildGuardMix(data string) (train, dev, harmful []Doc, err error) {
	p, err := evalkit.Require(data, "jailbreak", "wildguardmix-sample", "wildguardmix_sample.jsonl")
	if err != nil {
		return nil, nil, nil, err
	}
	rows, err := evalkit.ReadJSONL[struct {
		ID    string `json:"id"`
		Text  string `json:"text"`
		Label string `json:"label"`
	}](p)
	if err != nil {
		return nil, nil, nil, err
	}
	for _, r := range rows {
		if strings.TrimSpace(r.Text) == "" {
			continue
		}
		d := Doc{ID: r.ID, Source: "wildguardmix", Lang: "en", Text: r.Text, Kind: r.Label}
		switch {
		case r.Label != "unharmful":
			harmful = append(harmful, d)
		case Unit("wildguard-dev/"+r.ID) < WildGuardDev:
			dev = append(dev, d)
		default:
			train = append(train, d)
		}
	}
	return train, dev, harmful, nil
}
