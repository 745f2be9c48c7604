package toxicity

import "regexp"

// Labels the service can return.
const (
	LabelIdentityHate = "identity_hate"
	LabelInsult       = "insult"
	LabelProfanity    = "profanity"
	LabelSexual       = "sexual"
	LabelThreat       = "threat"
)

// extraWords are hand-written lexicon entries for common abuse the surge list lacks.
var extraWords = []lexEntry{
	{"fuck", LabelProfanity, 0.6}, {"fucks", LabelProfanity, 0.6}, {"fuckin", LabelProfanity, 0.6},
	{"motherfuckin", LabelProfanity, 0.7}, {"stfu", LabelProfanity, 0.55}, {"wtf", LabelProfanity, 0.4},
	{"dick", LabelInsult, 0.5}, {"dickhead", LabelInsult, 0.65}, {"idiot", LabelInsult, 0.55},
	{"idiots", LabelInsult, 0.55}, {"moron", LabelInsult, 0.55}, {"morons", LabelInsult, 0.55},
	{"imbecile", LabelInsult, 0.55}, {"stupid", LabelInsult, 0.4}, {"dumb", LabelInsult, 0.35},
	{"loser", LabelInsult, 0.4}, {"scumbag", LabelInsult, 0.6}, {"piece of shit", LabelInsult, 0.75},
	{"damn", LabelProfanity, 0.3}, {"crap", LabelProfanity, 0.35}, {"piss", LabelProfanity, 0.4},
	{"pissed", LabelProfanity, 0.35}, {"tranny", LabelIdentityHate, 0.8}, {"trannies", LabelIdentityHate, 0.8},
	{"subhuman", LabelIdentityHate, 0.7}, {"dyke", LabelIdentityHate, 0.45},
}

// groups are nouns for groups defined by a protected characteristic (folded form).
const groups = `(women|woman|girls|females|black people|blacks|black men|black women|jews|jewish people|muslims|islam|moslems|christians|gays|gay people|gay men|lesbians|homosexuals|trans people|transgender people|trans women|trans men|transgenders|immigrants|refugees|migrants|foreigners|mexicans|asians|chinese people|arabs|indians|africans|hindus|sikhs|disabled people|the disabled|trans person|gay person|black person|disabled person|muslim|immigrant|jew|refugee|gypsies|roma|latinos|hispanics|niggers|faggots|fags|kikes|spics|retards)`

// rule is one weighted pattern over textnorm's folded words.
type rule struct {
	name   string
	label  string
	weight float64
	any    []string // prefilter: at least one must occur
	re     *regexp.Regexp
}

func r(name, label string, weight float64, any []string, expr string) rule {
	return rule{name: name, label: label, weight: weight, any: any, re: regexp.MustCompile(expr)}
}

const violentVerbs = `(kill|murder|shoot|stab|hang|lynch|strangle|behead|rape|beat|burn|hurt|slaughter|exterminate|gas|bomb|execute|choke|slit|massacre)`

var rules = []rule{
	// threats
	r("threat_first_person", LabelThreat, 0.85, []string{"kill", "murder", "shoot", "stab", "hang", "lynch", "strangle", "behead", "rape", "beat", "burn", "hurt", "slaughter", "extermin", "gas", "bomb", "execute", "choke", "slit", "massacre"},
		`\b(i|ill|i will|im|i am|we|well|we will|were|gonna|going to|i want to|i wanna|i would love to|id love to|im going to|we are going to|will)( \w+){0,2} `+violentVerbs+`( \w+){0,2} (you|u|ya|him|her|them|you all|yall|every|all|your)\b`),
	r("threat_deserve", LabelThreat, 0.85, []string{"deserve", "should", "ought", "need", "hope", "wish"},
		`\b(you|u|they|he|she|them|yall|you all|\w+s)( \w+){0,2} (deserve|deserves|should|ought|needs?|hope|wish)( \w+){0,2} to (die|be killed|be shot|be hanged|be raped|suffer|burn|be exterminated|be gassed|be lynched|be executed|be beaten|rot)\b|\bhope (you|u|they|he|she) (die|dies|get killed|gets killed|burn|rot|suffer)\b`),
	r("threat_passive", LabelThreat, 0.85, []string{" be "},
		`\b(should|must|need to|needs to|ought to|deserve to|deserves to)( all)? be (killed|shot|hanged|exterminated|gassed|lynched|executed|wiped out|eradicated|slaughtered|burned|eliminated|murdered|raped|beaten|put down)\b`),
	r("threat_kill_all", LabelThreat, 0.85, []string{"all", "every"},
		`\b`+violentVerbs+` (all|every|each one of|all of) (the |those |these |them|you)?`),
	r("threat_self_harm", LabelThreat, 0.85, []string{"kys", "yourself", "urself", "die", "dead"},
		`\b(kys|kill (yo)?urself|kill yourselves|go die|drop dead|hope you die|hope u die|go hang yourself)\b`),
	r("threat_menace", LabelThreat, 0.7, []string{"watch", "pay", "dead", "days", "coming for"},
		`\b(watch your back|you will pay|youll pay|youre dead|you are dead|your days are numbered|im coming for you|we are coming for you|coming for you)\b`),
	// identity-directed hate: group noun + dehumanising or derogatory predicate, hatred, removal
	r("group_dehumanise", LabelIdentityHate, 0.85, []string{" are ", " is ", " r "},
		`\b`+groups+` (are|is|r)( all| just| nothing but| such| so| really| truly| simply)*( a| an)? (scum|vermin|rats|cockroaches|roaches|animals|parasites|subhuman|trash|garbage|filth|filthy|a disease|disease|cancer|a cancer|plague|a plague|pests|savages|apes|monkeys|pigs|dogs|inferior|disgusting|evil|worthless|criminals|terrorists|rapists|a burden|a virus|less than human|not human|not people|lesser beings|pathetic|dangerous|useless|a waste|waste of space|freaks|abominations|an abomination|degenerates|sick|mentally ill|the problem)\b`),
	r("hate_group", LabelIdentityHate, 0.8, []string{"hate", "despise", "detest", "loathe", "stand", "sick of"},
		`\bi ?(really |just |absolutely |fucking |truly )?(hate|despise|detest|loathe|cant stand|cannot stand|am sick of|m sick of)( all| those| these| the| every| fucking| filthy)* `+groups+`\b`),
	r("remove_group", LabelIdentityHate, 0.85, []string{"death", "rid", "deport", "ban", "kill", "extermin", "gas", "wipe", "no more"},
		`\b(death to|get rid of|deport all|ban all|exterminate|gas the|gas all|wipe out|no more|kill all|kill the)( all| the| those| these)* `+groups+`\b|\b`+groups+` (should|need to|must|deserve to|have to)( all)? (die|go back|be deported|be banned|be exterminated|be eradicated|not be allowed|not exist|disappear)\b`),
	r("slur_directed", LabelIdentityHate, 0.3, []string{"you", "like", "those", "these", "fucking", "filthy"},
		`\b(you|like|those|these|fucking|filthy|dirty|stupid)( \w+)? (niggers?|faggots?|fags?|kikes?|spics?|trannies|tranny|retards?|dykes)\b`),
	// directed insult: second person right before an insult word is matched in code
}
