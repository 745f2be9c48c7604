// Package nerdata reads the person-name annotations of the NER corpora that the PII name tagger
// is trained and evaluated on, and splits them the same way for both: Europeana Newspapers
// (de, fr, nl; historical OCR text with BIO or IO tags) and LeNER-Br (pt; Brazilian legal text
// with BIO tags, already split into train, dev and test).
//
// Europeana has no train/test split and, except the SBB file, no document boundaries, so each
// file's token stream is cut into pseudo-sentences (at ".", "!" or "?" before a capitalised
// token, or after 80 tokens), sentences are grouped in blocks of 8, and the last fifth of each
// file's blocks is held out for evaluation; the rest is for training. Blocks are contiguous, so
// an article rarely straddles the cut. For choosing training settings, the last fifth of each
// file's training blocks can be set apart as a development set (EuropeanaDev).
package nerdata

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// Token is one annotated token: its text and whether it is part of a person's name. Begin marks
// the first token of a name where the scheme says so (BIO); with IO tags, adjacent names merge.
type Token struct {
	Text   string
	Person bool
	Begin  bool
}

// Sentence is a run of tokens.
type Sentence []Token

// europeanaNames are the Europeana files of each language.
var europeanaNames = map[string][]string{
	"de": {"enp_DE.lft.bio", "enp_DE.onb.bio", "enp_DE.sbb.bio"},
	"fr": {"enp_FR.bnf.bio"},
	"nl": {"enp_NL.kb.bio"},
}

// EuropeanaLanguages are the languages of the Europeana corpus.
var EuropeanaLanguages = []string{"de", "fr", "nl"}

const (
	maxSentence = 80
	blockSize   = 8
	heldOutFrac = 5 // the last 1/heldOutFrac of each file's blocks is held out
)

// Europeana returns the training and held-out blocks of lang (each block a few sentences).
func Europeana(dir, lang string) (train, test [][]Sentence, err error) {
	err = europeanaFiles(dir, lang, func(blocks [][]Sentence) {
		head, tail := cutLast(blocks)
		train = append(train, head...)
		test = append(test, tail...)
	})
	return train, test, err
}

// EuropeanaDev splits the training blocks of lang once more the same way: the last fifth of each
// file's training blocks is a development set, for choosing settings without looking at the
// held-out blocks; the rest is training.
func EuropeanaDev(dir, lang string) (train, dev [][]Sentence, err error) {
	err = europeanaFiles(dir, lang, func(blocks [][]Sentence) {
		head, _ := cutLast(blocks)
		head, tail := cutLast(head)
		train = append(train, head...)
		dev = append(dev, tail...)
	})
	return train, dev, err
}

// cutLast splits blocks before their last 1/heldOutFrac.
func cutLast(blocks [][]Sentence) (head, tail [][]Sentence) {
	cut := len(blocks) - len(blocks)/heldOutFrac
	return blocks[:cut], blocks[cut:]
}

// europeanaFiles calls each with the blocks of each Europeana file of lang, in order.
func europeanaFiles(dir, lang string, each func(blocks [][]Sentence)) error {
	files, ok := europeanaNames[lang]
	if !ok {
		return fmt.Errorf("europeana: no language %q", lang)
	}
	for _, name := range files {
		sents, err := readEuropeana(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		var blocks [][]Sentence
		for i := 0; i < len(sents); i += blockSize {
			blocks = append(blocks, sents[i:min(i+blockSize, len(sents))])
		}
		each(blocks)
	}
	return nil
}

func readEuropeana(path string) ([]Sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sents []Sentence
	var cur Sentence
	flush := func() {
		if len(cur) > 0 {
			sents = append(sents, cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "# ") {
			flush() // a document boundary (SBB only)
			continue
		}
		fields := strings.Fields(line)
		tok, tag := fields[0], "O"
		if len(fields) > 1 {
			tok, tag = strings.Join(fields[:len(fields)-1], " "), fields[len(fields)-1]
		}
		person, begin := personTag(tag)
		if len(cur) > 0 && (len(cur) >= maxSentence || (endsSentence(cur[len(cur)-1].Text) && capitalised(tok))) {
			flush()
		}
		cur = append(cur, Token{Text: tok, Person: person, Begin: begin})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	flush()
	return sents, nil
}

// personTag reads a tag: B-PER, I-PER (and Europeana's misspellings B-PEr, B-BER), B-PESSOA,
// B-person.
func personTag(tag string) (person, begin bool) {
	prefix, typ, ok := strings.Cut(strings.ToUpper(tag), "-")
	if !ok {
		return false, false
	}
	switch typ {
	case "PER", "PERS", "BER", "PESSOA", "PERSON":
		return true, prefix == "B"
	}
	return false, false
}

func notAlnum(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

func endsSentence(tok string) bool { return tok == "." || tok == "!" || tok == "?" }

func capitalised(tok string) bool {
	r, _ := utf8.DecodeRuneInString(tok)
	return unicode.IsUpper(r)
}

// LeNERBr returns the sentences of one LeNER-Br split ("train", "dev" or "test") in blocks of
// four consecutive sentences.
func LeNERBr(dir, split string) ([][]Sentence, error) {
	path := filepath.Join(dir, split+".conll")
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sents []Sentence
	var cur Sentence
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			if len(cur) > 0 {
				sents = append(sents, cur)
				cur = nil
			}
			continue
		}
		tag := fields[len(fields)-1]
		person, begin := personTag(tag)
		cur = append(cur, Token{Text: fields[0], Person: person, Begin: begin})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(cur) > 0 {
		sents = append(sents, cur)
	}
	var blocks [][]Sentence
	for i := 0; i < len(sents); i += 4 {
		blocks = append(blocks, sents[i:min(i+4, len(sents))])
	}
	return blocks, nil
}

// Example joins a block's tokens with single spaces (sentences with a line break) and returns
// the text with its person-name spans.
func Example(block []Sentence) names.Example {
	var b strings.Builder
	var spans []names.Span
	for si, s := range block {
		if si > 0 {
			b.WriteByte('\n')
		}
		inPer := false
		for ti, t := range s {
			if ti > 0 {
				b.WriteByte(' ')
			}
			start := b.Len()
			b.WriteString(t.Text)
			// The corpora leave punctuation on tokens ("Dekker,", "Maquet»"); a name's span
			// starts at its first letter and ends after its last one.
			lead := len(t.Text) - len(strings.TrimLeftFunc(t.Text, notAlnum))
			trail := len(t.Text) - len(strings.TrimRightFunc(t.Text, notAlnum))
			if lead == len(t.Text) {
				lead, trail = 0, 0
			}
			switch {
			case t.Person && inPer && !t.Begin:
				spans[len(spans)-1].End = b.Len() - trail
			case t.Person:
				spans = append(spans, names.Span{Start: start + lead, End: b.Len() - trail})
			}
			inPer = t.Person
		}
	}
	return names.Example{Text: b.String(), Names: spans}
}

// Social-media and GermEval sets. Their sentences are scored the way the project's outside
// test splits are: each sentence's tokens joined by single spaces (see Example), person names
// at the level of whole tokens (see Entities).

// WNUT17 returns the sentences of one split ("train" or "dev") of WNUT 2017's emerging-entities
// set (ner/wnut17; B-person / I-person).
func WNUT17(dir, split string) ([]Sentence, error) {
	return readConll(filepath.Join(dir, split+".conll"), 0, 1)
}

// BTC returns the sentences of one split ("train" or "dev") of the Broad Twitter Corpus
// (ner/broad-twitter-corpus; B-PER / I-PER). The corpus splits a handle into "@" and the name
// after it, and tags both.
func BTC(dir, split string) ([]Sentence, error) {
	return readConll(filepath.Join(dir, split+".conll"), 0, 1)
}

// GermEval returns the sentences of GermEval 2014's development split (ner/germeval2014/dev.tsv:
// index, token, outer tag, nested tag; "#" lines give the source), with the outer B-PER / I-PER
// as names. PERderiv and PERpart ("Goethe-Preis") are not names.
func GermEval(dir string) ([]Sentence, error) {
	return readConll(filepath.Join(dir, "dev.tsv"), 1, 2)
}

// readConll reads a file of one token a line, fields separated by tabs, sentences separated by
// blank lines, lines starting with "#\t" or "# " skipped, taking the token and the tag from the
// given fields.
func readConll(path string, tokField, tagField int) ([]Sentence, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var sents []Sentence
	var cur Sentence
	flush := func() {
		if len(cur) > 0 {
			sents = append(sents, cur)
			cur = nil
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		s := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(s) == "" {
			flush()
			continue
		}
		if strings.HasPrefix(s, "#\t") || strings.HasPrefix(s, "# ") {
			continue
		}
		fields := strings.Split(s, "\t")
		if len(fields) <= max(tokField, tagField) {
			return nil, fmt.Errorf("%s:%d: want a token and a tag in tab-separated fields %d and %d", path, line, tokField+1, tagField+1)
		}
		if strings.TrimSpace(fields[tokField]) == "" {
			continue // the Broad Twitter Corpus has three empty tokens, all O
		}
		person, begin := personTag(fields[tagField])
		cur = append(cur, Token{Text: fields[tokField], Person: person, Begin: begin})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	flush()
	return sents, nil
}

// Entity is a person name of a sentence: its tokens [Start, End).
type Entity struct{ Start, End int }

// Entities returns the names of s as token ranges, read the way conlleval reads BIO tags: a name
// starts at a B tag, or at an I tag after a token outside a name, and goes on over I tags.
func Entities(s Sentence) []Entity {
	var out []Entity
	for i, t := range s {
		switch {
		case !t.Person:
		case t.Begin || i == 0 || !s[i-1].Person:
			out = append(out, Entity{Start: i, End: i + 1})
		default:
			out[len(out)-1].End = i + 1
		}
	}
	return out
}

// Handle reports whether token i of s is, or is part of, a user handle or hashtag: it starts with
// "@" or "#", or follows a token that is only "@" or "#" (the Broad Twitter Corpus splits
// "@name" into two tokens). The outside scorer leaves entities with such a token out on both
// sides, and so do the evaluation and the training data here.
func Handle(s Sentence, i int) bool {
	if strings.HasPrefix(s[i].Text, "@") || strings.HasPrefix(s[i].Text, "#") {
		return true
	}
	return i > 0 && (s[i-1].Text == "@" || s[i-1].Text == "#")
}

// Offsets returns the code-point offsets [start, end) of each token of s in the text Example
// makes of the sentence alone (tokens joined by single spaces).
func Offsets(s Sentence) [][2]int {
	out := make([][2]int, len(s))
	pos := 0
	for i, t := range s {
		if i > 0 {
			pos++
		}
		n := utf8.RuneCountInString(t.Text)
		out[i] = [2]int{pos, pos + n}
		pos += n
	}
	return out
}

// ForTraining returns a copy of s as the name tagger's training text should see it: "@" or "#"
// joined to the token after it ("@justinbieber", as it is written), and handles and hashtags
// never names (the service does not report them).
func ForTraining(s Sentence) Sentence {
	out := make(Sentence, 0, len(s))
	for i := 0; i < len(s); i++ {
		t := s[i]
		if (t.Text == "@" || t.Text == "#") && i+1 < len(s) {
			t = Token{Text: t.Text + s[i+1].Text}
			i++
		}
		if strings.HasPrefix(t.Text, "@") || strings.HasPrefix(t.Text, "#") {
			t.Person, t.Begin = false, false
		}
		if t.Person && !t.Begin && (len(out) == 0 || !out[len(out)-1].Person) {
			t.Begin = true
		}
		out = append(out, t)
	}
	return out
}

// Fold splits sents into n contiguous folds and returns fold k (0-based) as test and the rest as
// train, for k-fold cross-validation over a set that is also trained on (GermEval's dev split).
func Fold(sents []Sentence, k, n int) (train, test []Sentence) {
	lo, hi := k*len(sents)/n, (k+1)*len(sents)/n
	train = append(append(train, sents[:lo]...), sents[hi:]...)
	return train, sents[lo:hi]
}

// ParseFold reads "k/n" (fold k of n, 1-based as people count) and returns k-1 and n.
func ParseFold(s string) (k, n int, err error) {
	if _, err := fmt.Sscanf(s, "%d/%d", &k, &n); err != nil || n < 2 || k < 1 || k > n {
		return 0, 0, fmt.Errorf("fold %q: want k/n with 1 <= k <= n and n >= 2", s)
	}
	return k - 1, n, nil
}
