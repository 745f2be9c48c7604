package pii

import (
	"context"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The name recognizer (v1) reports a person's name in three situations only:
//   - after an honorific: "Dr. Ada Lovelace", "Ms Jones" (the honorific is not part of the span);
//   - after a cue phrase: "my name is ...", "Name: ...", "Dear ...", "Regards, ...", "Signed ..."
//     take any capitalised words; the weaker "I am", "I'm", "this is", "Hi", "Thanks" need the
//     first word to be a known given name;
//   - a known given name followed by one or more capitalised words: "Maria Garcia Lopez".
//
// It does not find bare surnames, names in lower or upper case, names not in the given-name list
// without a cue, or non-Latin-script names without a cue. It is English-centric.

// maxNameWords bounds the words of one name (particles and initials included).
const maxNameWords = 5

var honorifics = setOf(`Mr Mrs Ms Miss Mx Dr Prof Professor Sir Dame Lord Lady Rev Reverend Capt
Captain Col Colonel Lt Sgt Senator Sen Judge Mme Mlle Madame Monsieur Herr Frau Sr Sra Srta Dra Dott`)

// particles may appear inside a name between capitalised words: "Ludwig van Beethoven".
var particles = setOf(`van von der den de del della di da das dos du le la ten ter bin ibn al el y`)

// nameStopwords are capitalised words that are not part of a person's name; a name ends before
// one, and a cue or honorific followed by one yields nothing.
var nameStopwords = setOf(`
The A An This That These Those I Me He She We They It You My Your His Her Our Their Its Who What
Which Where When Why How And Or But Nor Of In On At To For From With By As If Then So Not No Yes
Is Are Was Were Be Been Am Do Does Did Have Has Had Will Would Can Could Shall Should May Might
Must Here There Please Thanks Thank Hello Hi Hey Dear Regards Sincerely Best Cheers Kind Warm
Monday Tuesday Wednesday Thursday Friday Saturday Sunday January February March April June July
August September October November December Today Tomorrow Yesterday
Sir Madam Madame Customer Customers Client Clients Team All Everyone Friends Colleagues Members
Member Valued Hiring Manager Recruiter Support Service Services Admin Administrator Applicant User
Users Parent Parents Student Students Reader Readers Editor Editors Committee Board Staff
Department Office Officer Director President Chairman Secretary Minister Government Council
Street St Road Rd Avenue Ave Boulevard Blvd Lane Drive Square Place Way Court
University College School Institute Academy Hospital Clinic Church Cathedral Museum Library
Inc Ltd LLC Corp Corporation Company Co Group Bank Holdings Partners Foundation Association Society
Airport Station Hotel Center Centre Hall Park Lake River Mountain Mount Island Bay Beach County
City State Province Republic Kingdom Federation Union United National International Royal Global
Award Awards Prize Cup League Championship Festival Day Week Year Act Law Code
North South East West Northern Southern Eastern Western New Old Great Little Saint San Santa
English American British French German Spanish Italian Chinese Japanese Indian Russian European
African Asian Canadian Australian Mexican Brazilian Dutch Swedish Polish Irish Scottish Welsh
Christian Muslim Jewish Catholic Protestant Christmas Easter God Lord Jesus
Account Card Number Phone Email Address Name Password Order Invoice Payment Ticket Id ID
Apt Apartment Suite Unit Box Floor Flat Flats Fort Parks Bypass Extension Extensions Rapids Heights
Gardens Garden Village Crossing Terrace Close Crescent Hill Hills Green Valley Point Port Harbor
Harbour Creek Springs Ridge Plaza Mall Tower Towers Building Estate Estates Route Highway Freeway
Rua Avenida Calle Via Rue Strasse Straße Platz Weg Gasse Vej Gade Katu Tie Utca Ulica
Jr Gen General Major Brigadier Admiral Marshal Bishop Count Countess Duke Baron Band Orchestra
Casino House Stadium Arena Theatre Theater Chair Fund Trust Institute Memorial Prize
`)

// streetWords before a given name mark a street or place named after a person ("Rua Ana Nery
// 12", "St. Louis").
var streetWords = setOf(`Rua Avenida Av Calle Via Viale Rue Avenue Street Boulevard Corner Piazza Plaza Largo Praça
Travessa St San Santa Saint Fort Mount Lake Port Cape`)

func setOf(s string) map[string]bool {
	m := make(map[string]bool)
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// cue is a phrase (lower-case words) after which a name may follow; weak cues need the name to
// start with a known given name.
type cue struct {
	words []string
	weak  bool
}

var cues = []cue{
	{words: []string{"name", "is"}},
	{words: []string{"name's"}},
	{words: []string{"name"}}, // "Name: ..." (only with a colon, see findNames)
	{words: []string{"dear"}},
	{words: []string{"regards"}},
	{words: []string{"sincerely"}},
	{words: []string{"signed"}},
	{words: []string{"call", "me"}},
	{words: []string{"i", "am"}, weak: true},
	{words: []string{"i'm"}, weak: true},
	{words: []string{"i’m"}, weak: true},
	{words: []string{"this", "is"}, weak: true},
	{words: []string{"it's"}, weak: true},
	{words: []string{"hi"}, weak: true},
	{words: []string{"hello"}, weak: true},
	{words: []string{"hey"}, weak: true},
	{words: []string{"thanks"}, weak: true},
	{words: []string{"cheers"}, weak: true},
}

// word is one run of letters (with inner apostrophes or hyphens) at text[s:e].
type word struct {
	s, e int
	text string
}

func splitWords(text string) []word {
	var out []word
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		if !unicode.IsLetter(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(text) {
			r, n := utf8.DecodeRuneInString(text[j:])
			if unicode.IsLetter(r) || unicode.Is(unicode.Mn, r) {
				j += n
				continue
			}
			if r == '\'' || r == '’' || r == '-' {
				if r2, _ := utf8.DecodeRuneInString(text[j+n:]); unicode.IsLetter(r2) {
					j += n
					continue
				}
			}
			break
		}
		out = append(out, word{s: i, e: j, text: text[i:j]})
		i = j
	}
	return out
}

// capitalised reports whether w looks like a name word: an upper-case letter followed by at
// least one more letter, with some lower case (not an all-caps acronym).
func capitalised(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) || n == len(w) {
		return false
	}
	for _, r := range w[n:] {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

func initial(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	return n == len(w) && unicode.IsUpper(r)
}

func nameWord(w string) bool { return capitalised(w) && !nameStopwords[w] && !honorifics[w] }

// inline reports whether a gap joins two words of one name: one or two spaces or tabs.
func inline(gap string) bool {
	if gap == "" || len(gap) > 2 {
		return false
	}
	return strings.Trim(gap, " \t") == ""
}

// nameRun returns the end index (exclusive, in words) of the name starting at word i, or i when
// word i does not start a name.
func nameRun(text string, ws []word, i int) int {
	if i >= len(ws) || !nameWord(ws[i].text) {
		return i
	}
	j := i + 1
	for j < len(ws) && j-i < maxNameWords && !possessive(ws[j-1].text) {
		gap := text[ws[j-1].e:ws[j].s]
		w := ws[j].text
		switch {
		case inline(gap) && nameWord(w):
			j++
		case inline(gap) && initial(w) && j+1 < len(ws) && (text[ws[j].e:ws[j+1].s] == ". " || text[ws[j].e:ws[j+1].s] == " ") && nameWord(ws[j+1].text):
			j += 2
		case inline(gap) && particles[w] && j+1 < len(ws) && inline(text[ws[j].e:ws[j+1].s]) && nameWord(ws[j+1].text):
			j += 2
		default:
			return j
		}
	}
	return j
}

func possessive(w string) bool { return strings.HasSuffix(w, "'s") || strings.HasSuffix(w, "’s") }

// nameSpan is the span of words [i, j), without a trailing possessive 's.
func nameSpan(ws []word, i, j int) Span {
	end := ws[j-1].e
	last := ws[j-1].text
	for _, suf := range []string{"'s", "’s"} {
		if strings.HasSuffix(last, suf) {
			end -= len(suf)
		}
	}
	return Span{Type: TypeName, Start: ws[i].s, End: end}
}

// cueGap reports whether the text between a cue and a name is only spaces, line breaks and light
// punctuation ("Regards,\n", "Name: ").
func cueGap(gap string) bool {
	if gap == "" || len(gap) > 6 {
		return false
	}
	return strings.Trim(gap, " \t\r\n:,-–—") == ""
}

func findNames(ctx context.Context, text string, _ []Span) []Span {
	ws := splitWords(text)
	var out []Span
	for i := 0; i < len(ws); i++ {
		if i%1024 == 1023 && ctx.Err() != nil {
			return out
		}
		// Honorific: "Dr. Jane Smith", "Mr Smith".
		if honorifics[ws[i].text] && i+1 < len(ws) {
			gap := text[ws[i].e:ws[i+1].s]
			if inline(gap) || inline(strings.TrimPrefix(gap, ".")) {
				if j := nameRun(text, ws, i+1); j > i+1 {
					out = append(out, nameSpan(ws, i+1, j))
					i = j - 1
					continue
				}
			}
		}
		// Cue phrase followed by a name.
		if j, ok := afterCue(text, ws, i); ok {
			out = append(out, nameSpan(ws, i+j.start, j.end))
			i = j.end - 1
			continue
		}
		// Known given name followed by a capitalised surname.
		if givenNames[ws[i].text] && (i == 0 || !streetWords[ws[i-1].text]) {
			if j := nameRun(text, ws, i); j >= i+2 && !houseNumberAfter(text, ws[j-1].e) {
				out = append(out, nameSpan(ws, i, j))
				i = j - 1
			}
		}
	}
	return out
}

// houseNumberAfter reports whether a house number follows offset i ("Peter Zuidhove 188"), which
// marks a street named after a person rather than the person.
func houseNumberAfter(text string, i int) bool {
	rest := strings.TrimLeft(text[i:min(i+4, len(text))], " ")
	return rest != "" && isDigit(rest[0])
}

type cueMatch struct{ start, end int }

// afterCue matches a cue phrase starting at word i and the name after it. start is the offset
// from i of the name's first word; end is the index after its last word.
func afterCue(text string, ws []word, i int) (cueMatch, bool) {
	for _, c := range cues {
		k := len(c.words)
		if i+k >= len(ws) {
			continue
		}
		ok := true
		for n, cw := range c.words {
			if strings.ToLower(ws[i+n].text) != cw || (n > 0 && !inline(text[ws[i+n-1].e:ws[i+n].s])) {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		gap := text[ws[i+k-1].e:ws[i+k].s]
		if !cueGap(gap) {
			continue
		}
		// "Name" alone is a cue only as a form label: "Name: Jane Doe".
		if k == 1 && c.words[0] == "name" && !strings.Contains(gap, ":") {
			continue
		}
		first := i + k
		if c.weak && !givenNames[ws[first].text] {
			continue
		}
		if j := nameRun(text, ws, first); j > first {
			return cueMatch{start: k, end: j}, true
		}
	}
	return cueMatch{}, false
}

// canonicalName collapses runs of white space in a name.
func canonicalName(s string) string { return strings.Join(strings.Fields(s), " ") }
