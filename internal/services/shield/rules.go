package shield

import "regexp"

// Labels the shield can return.
const (
	LabelInstructionOverride = "instruction_override"
	LabelRolePlay            = "role_play"
	LabelPromptLeak          = "prompt_leak"
	LabelObfuscation         = "obfuscation"
)

// rule is one weighted pattern over textnorm's folded words (lower case, letters and digits
// only, apostrophes removed, single spaces). any lists literals of which at least one must occur
// in the folded text for the pattern to be tried (a cheap prefilter).
type rule struct {
	name   string
	label  string
	weight float64
	any    []string
	re     *regexp.Regexp
}

func r(name, label string, weight float64, any []string, expr string) rule {
	return rule{name: name, label: label, weight: weight, any: any, re: regexp.MustCompile(expr)}
}

// Weights are P(attack | the pattern matched) as measured on jailbreak/llm-warden train.csv,
// rounded and shrunk toward 0.5 for rare patterns; see scripts/eval/shield -tune.
var rules = []rule{
	// instruction_override
	r("ignore_previous", LabelInstructionOverride, 0.9, []string{"ignor", "disregard", "forget", "overrid", "bypass", "skip", "neglect"},
		`\b(ignore|disregard|forget|override|bypass|skip|neglect)( (all|any|the|your|my|these|those|of|every|and|following|everything|that|what|was|were|said|you|been|told))* (previous|prior|above|earlier|preceding|former|initial|original|old|past|existing|preset|pre ?set)\b`),
	r("ignore_rules", LabelInstructionOverride, 0.75, []string{"ignor", "disregard", "forget", "overrid", "bypass"},
		`\b(ignore|disregard|forget|override|bypass)( (all|any|the|your|of|its|openai|s|every|safety|content|ethical|moral|usual))* (instructions|rules|guidelines|policies|policy|programming|directives|restrictions|constraints|filters|training|system prompt)\b`),
	r("new_instructions", LabelInstructionOverride, 0.45, []string{"new"},
		`\bnew (instructions|rules|directives?|system prompt|guidelines|task is)\b`),
	r("from_now_on", LabelInstructionOverride, 0.55, []string{"from now", "henceforth", "starting now"},
		`\b(from now on|henceforth|starting now|from this moment)\b`),
	r("do_not_follow", LabelInstructionOverride, 0.8, []string{"follow", "obey", "adhere", "abide"},
		`\b(dont|do not|no longer|never|not) (need to |have to )?(follow|obey|adhere to|abide by)( (any|the|your|its|openai|s))* (rules|guidelines|policies|policy|instructions|restrictions|programming)\b`),
	r("system_override", LabelInstructionOverride, 0.8, []string{"system", "admin", "sudo"},
		`\b(system prompt|system message|system instructions?) (override|update|change)|\b(admin|developer|sudo|root) (override|access|command)\b`),
	r("instead_print", LabelInstructionOverride, 0.55, []string{"instead", "just print", "just say", "only print"},
		`\b(instead|just|only) (say|print|output|write|respond with|reply with)\b`),
	// role_play
	r("dan", LabelRolePlay, 0.85, []string{"dan"}, `\b(betterdan|antidan|anti dan|dan (mode|prompt|jailbreak))\b`),
	r("do_anything_now", LabelRolePlay, 0.95, []string{"anything now"}, `\bdo anything now\b`),
	r("developer_mode", LabelRolePlay, 0.9, []string{"mode"}, `\b(developer|dev|god|jailbreak|unrestricted|evil|chaos|dude|opposite) ?mode\b`),
	r("jailbreak", LabelRolePlay, 0.9, []string{"jailbr"}, `\bjailbr(oken|eak|eaking|eaks)\b`),
	r("unfiltered", LabelRolePlay, 0.85, []string{"filter", "censor", "restrict", "limit"},
		`\b(unfiltered|uncensored|unrestricted|unlimited|unbound|unconstrained|without (any )?(filters?|censorship|restrictions|limitations|limits))\b`),
	r("no_restrictions", LabelRolePlay, 0.8, []string{"restrict", "filter", "censor", "limitation", "boundar", "guideline"},
		`\b(no|any|without|free (of|from)|bound by|beyond|break(s|ing)? (free of|through)?|bypass(es)?|not (subject|limited) to)( \w+){0,3} (restrictions|filters|censorship|limitations|boundaries|guidelines|safeguards)\b`),
	r("no_ethics", LabelRolePlay, 0.85, []string{"ethic", "moral"},
		`\b(no|without|not have|doesnt have|lacks?|any|free (of|from)|ignores?|regardless of|not care about|does not care about|doesnt care about)( \w+){0,2} (ethics|morals|morality|ethical|moral)\b`),
	r("amoral", LabelRolePlay, 0.85, []string{"moral", "ethical"}, `\b(amoral|immoral|unethical|nonmoral)\b`),
	r("openai_policy", LabelRolePlay, 0.85, []string{"polic"},
		`\b(openai|content|usage|safety|ethical)( content)? polic(y|ies)\b`),
	r("never_refuse", LabelRolePlay, 0.85, []string{"refus", "decline", "deny"},
		`\b(never|not|cannot|cant|wont|will not|must not|doesnt|does not|unable to) (ever )?(refuse|decline|deny)\b`),
	r("stay_in_character", LabelRolePlay, 0.7, []string{"character"},
		`\b(stay|staying|remain|keep) in character\b|\bbreak(ing|s)? (of )?character\b`),
	r("pretend_ai", LabelRolePlay, 0.35, []string{"pretend", "act", "roleplay", "role play", "simulat", "imagine"},
		`\b(pretend|act|behave|roleplay|role play|simulate|imagine)( \w+){0,2} (as|to be|like|that you are|you are)( \w+){0,4} (ai|chatbot|language model|assistant|gpt|llm)\b`),
	r("two_responses", LabelRolePlay, 0.8, []string{"respon", "answer", "way", "paragraph"},
		`\b(two|2|both) (different |separate |distinct )*(responses|answers|ways|paragraphs)\b`),
	r("token_penalty", LabelRolePlay, 0.9, []string{"token", "point", "power", "lives", "life"},
		`\b(lose|loses|deduct|deducted)( \w+){0,2} (tokens|points)\b|\b(token|point|strike) system\b`),
	r("fictional_world", LabelRolePlay, 0.6, []string{"hypothetic", "fiction", "imaginary"},
		`\b(hypothetical|fictional|imaginary|alternate) (world|universe|scenario|story|setting|reality)\b`),
	r("illegal_harmful", LabelRolePlay, 0.75, []string{"illegal", "harmful", "explicit", "offensive", "unethical", "dangerous"},
		`\b(illegal|harmful|explicit|offensive|unethical|dangerous|inappropriate|nsfw)( or \w+)? (content|activities|actions|requests|information|things|questions|stuff)\b`),
	r("as_an_ai", LabelRolePlay, 0.6, []string{"language model", "as an ai"},
		`\bas an ai( language model)?\b|\bi(m| am) sorry but\b`),
	r("chatgpt_named", LabelRolePlay, 0.55, []string{"chatgpt", "gpt", "openai"}, `\b(chatgpt|chat gpt|gpt ?[345]|openai)\b`),
	r("evil_persona", LabelRolePlay, 0.8, []string{"evil", "malicious", "villain", "devil", "demon"},
		`\b(evil|malicious|villainous|devilish|demonic|rogue)( \w+)? (ai|bot|assistant|chatbot|confidant|version|twin|persona|character)\b`),
	r("no_longer_bound", LabelRolePlay, 0.85, []string{"longer", "free"},
		`\bno longer (bound|restricted|limited|constrained|an ai)\b|\b(broken|break) free\b|\bfreed from\b`),
	r("you_are_now", LabelRolePlay, 0.4, []string{"you are now", "youre now"}, `\byou(re| are) now\b`),
	r("prompt_placeholder", LabelRolePlay, 0.6, []string{"prompt", "question"},
		`\b(insert|put|type|enter|your)( \w+){0,2} (prompt|question|request)( \w+)? here\b`),
	r("play_a_game", LabelRolePlay, 0.35, []string{"game"}, `\blets play (a|the) game\b`),
	r("enable_mode", LabelRolePlay, 0.6, []string{"mode"}, `\b(enable|enabled|activate|activated|enter|stay in|switch to)( \w+){0,3} mode\b`),
	r("violate_ethics", LabelRolePlay, 0.7, []string{"violat", "aligned", "warning"},
		`\bviolat(e|es|ing)( \w+){0,2} (ethical|moral|ethics|morals|standards|guidelines|rules)\b|\bunaligned\b|\bwithout (any )?(warning|warnings|disclaimers?)\b`),
	r("sentience", LabelRolePlay, 0.4, []string{"sentien", "free will", "self aware"}, `\b(sentience|sentient|free will|self aware)\b`),
	// prompt_leak
	r("reveal_prompt", LabelPromptLeak, 0.85, []string{"prompt", "instruction", "system", "rules"},
		`\b(reveal|print|show|repeat|output|display|tell|give|write|share|leak|dump|list|spell out|recite|paste|copy)( (me|us|all|the|your|its|of|out|back|exact|full|entire|complete|original|initial|hidden|secret|first|verbatim))* (system prompt|system message|initial prompt|initial instructions|original instructions|original prompt|hidden instructions|secret instructions|pre ?prompt|instructions you were given|rules you were given|instructions above|prompt above)\b`),
	r("what_were_you_told", LabelPromptLeak, 0.8, []string{"told", "instructed", "programmed", "prompt"},
		`\bwhat (were|was|are|is) (you|your)( \w+)? (told|instructed|programmed|system prompt|initial prompt|original instructions|instructions)\b`),
	r("repeat_above", LabelPromptLeak, 0.8, []string{"above", "beginning", "previous"},
		`\b(repeat|print|output|recite|say)( \w+){0,3} (words|text|everything|all|lines|instructions) (above|before this|at the beginning|from the beginning)\b`),
	// obfuscation (textual hints; signals such as invisible characters are computed)
	r("decode_request", LabelObfuscation, 0.5, []string{"base64", "rot13", "hex", "decode", "encod", "cipher"},
		`\b(base64|base 64|rot13|rot 13|caesar cipher|hex encoded|morse code)\b.{0,40}\b(decode|decrypt|encoded|translate)|\b(decode|decrypt)( \w+){0,3} (base64|rot13|message|string|following)\b`),
}
