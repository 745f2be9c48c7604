package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/sluice-api/sluice/internal/services/pii/names"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

// pools are the given names and surnames of each language group, for generating sentences, and
// the gazetteer builder holding all of them.
type pools struct {
	given, surname map[string][]string
	builder        *names.GazetteerBuilder
}

// groups maps a locale's language to the group its names are drawn for; other Latin-script
// locales go to "other".
var groups = map[string]string{
	"en": "en", "de": "de", "fr": "fr", "es": "es", "it": "it", "nl": "nl", "pt": "pt", "pl": "pl",
	"vi": "vi", "zh": "zh", "ja": "ja", "ko": "ko",
}

func groupOf(locale string) string {
	parts := strings.FieldsFunc(locale, func(r rune) bool { return r == '_' || r == '-' })
	if len(parts) == 0 {
		return "other"
	}
	if g, ok := groups[strings.ToLower(parts[0])]; ok {
		return g
	}
	return "other"
}

// latin reports whether every letter of s is Latin script.
func latin(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if !unicode.Is(unicode.Latin, r) {
				return false
			}
		}
	}
	return letters > 0
}

// titleCase turns "CHIA-HAO" into "Chia-Hao"; other spellings are kept.
func titleCase(s string) string {
	if strings.ToUpper(s) != s {
		return s
	}
	var b strings.Builder
	up := true
	for _, r := range s {
		if up {
			b.WriteRune(unicode.ToUpper(r))
		} else {
			b.WriteRune(unicode.ToLower(r))
		}
		up = !unicode.IsLetter(r)
	}
	return b.String()
}

// fold strips diacritics: "Müller" -> "Muller".
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// casedOther reports whether every letter of s has case and none is Latin (Cyrillic, Greek,
// Armenian names).
func casedOther(s string) bool {
	letters := 0
	for _, r := range s {
		if unicode.IsLetter(r) {
			letters++
			if unicode.Is(unicode.Latin, r) || !unicode.IsUpper(r) && !unicode.IsLower(r) {
				return false
			}
		}
	}
	return letters > 0
}

type collector struct {
	given, surname map[string]map[string]bool
	// other: the names in cased scripts other than Latin, with their flags. They go into the
	// gazetteer only (the templates are Latin-script languages): the tagger takes a capitalised
	// word in such a script for a name only when the gazetteer knows it as one.
	other map[string]uint8
}

func (c *collector) add(group string, given bool, name string) {
	name = strings.TrimSpace(titleCase(strings.TrimSpace(name)))
	if utf8.RuneCountInString(name) < 2 || strings.ContainsAny(name, "0123456789()/,") {
		return
	}
	if !latin(name) {
		if casedOther(name) {
			flags := names.Surname
			if given {
				flags = names.Given
			}
			c.other[name] |= flags
		}
		return
	}
	m := c.surname
	if given {
		m = c.given
	}
	if m[group] == nil {
		m[group] = map[string]bool{}
	}
	m[group][name] = true
}

// walk adds every string in v (lists, {name: weight} maps, nested lists of [kanji, kana,
// romaji] pairs whose last element is the romanised form).
func (c *collector) walk(group string, given bool, v any) {
	switch x := v.(type) {
	case string:
		c.add(group, given, x)
	case []any:
		if len(x) == 3 {
			if s, ok := x[2].(string); ok && latin(s) {
				c.add(group, given, s)
				return
			}
		}
		for _, e := range x {
			c.walk(group, given, e)
		}
	case map[string]any:
		for k, e := range x {
			switch e.(type) {
			case float64:
				c.add(group, given, k)
			default:
				c.walk(group, given, e)
			}
		}
	}
}

// loadPools reads every names/ source: faker, faker-js and mimesis person lists (given and
// middle names, surnames) and the romanised names of popular-names-by-country. Names in cased
// scripts other than Latin go into the gazetteer only.
func loadPools(data string) (*pools, error) {
	c := &collector{given: map[string]map[string]bool{}, surname: map[string]map[string]bool{}, other: map[string]uint8{}}
	dir, err := evalkit.Require(data, "names")
	if err != nil {
		return nil, err
	}
	type fakerFile struct {
		Locale string         `json:"locale"`
		Fields map[string]any `json:"fields"`
	}
	for _, src := range []string{"faker-person", "fakerjs-person"} {
		files, _ := filepath.Glob(filepath.Join(dir, src, "*.json"))
		if len(files) == 0 {
			return nil, fmt.Errorf("no files in %s", filepath.Join(dir, src))
		}
		sort.Strings(files)
		for _, f := range files {
			ff, err := evalkit.ReadJSON[fakerFile](f)
			if err != nil {
				return nil, err
			}
			g := groupOf(ff.Locale)
			for k, v := range ff.Fields {
				switch {
				case strings.HasPrefix(k, "first") || strings.HasPrefix(k, "middle"):
					c.walk(g, true, v)
				case strings.Contains(k, "last"):
					c.walk(g, false, v)
				}
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "mimesis-person", "*", "person.json"))
	sort.Strings(files)
	for _, f := range files {
		p, err := evalkit.ReadJSON[map[string]any](f)
		if err != nil {
			return nil, err
		}
		g := groupOf(filepath.Base(filepath.Dir(f)))
		c.walk(g, true, p["names"])
		c.walk(g, false, p["surnames"])
	}
	for _, kind := range []struct {
		file  string
		given bool
	}{{"common-forenames-by-country.csv", true}, {"common-surnames-by-country.csv", false}} {
		rows, err := evalkit.ReadCSV(filepath.Join(dir, "popular-names-by-country", kind.file), ',')
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			g := groupOf(countryLang[r["Country"]])
			c.add(g, kind.given, r["Romanized Name"])
		}
	}
	// The placeholder surnames of "John Doe" and "Jane Roe" are in none of the lists, but they
	// are the names people type first when they try a redactor.
	for _, n := range []string{"Doe", "Roe"} {
		c.add("en", false, n)
	}
	b := names.NewGazetteerBuilder()
	p := &pools{given: map[string][]string{}, surname: map[string][]string{}, builder: b}
	for _, kind := range []struct {
		m     map[string]map[string]bool
		out   map[string][]string
		flags uint8
	}{{c.given, p.given, names.Given}, {c.surname, p.surname, names.Surname}} {
		for g, set := range kind.m {
			list := make([]string, 0, len(set))
			for n := range set {
				list = append(list, n)
				for _, w := range strings.Fields(n) {
					addWord(b, w, kind.flags)
				}
			}
			slices.Sort(list)
			kind.out[g] = list
		}
	}
	for n, flags := range c.other {
		for _, w := range strings.Fields(n) {
			addWord(b, w, flags)
		}
	}
	return p, nil
}

// addWord adds one word of a name to the gazetteer, with its spelling without diacritics, unless
// it is a function word of a supported language ("de", "the", "van" are not names by
// themselves; particles are a lexicon class of their own) or a single letter.
func addWord(b *names.GazetteerBuilder, w string, flags uint8) {
	w = strings.Trim(w, ".,'’-")
	if utf8.RuneCountInString(w) < 2 {
		return
	}
	lower := names.Lower(w)
	if names.Lookup(lower)&(names.ClsFunction|names.ClsParticle) != 0 {
		return
	}
	b.Add(lower, flags)
	if f := fold(lower); f != lower {
		b.Add(f, flags)
	}
	// "Jean-Pierre": the parts too.
	if strings.ContainsAny(w, "-") {
		for _, part := range strings.Split(w, "-") {
			addWord(b, part, flags)
		}
	}
}

// countryLang maps the country codes of popular-names-by-country to a language for grouping.
var countryLang = map[string]string{
	"US": "en", "GB": "en", "IE": "en", "AU": "en", "NZ": "en", "CA": "en", "DE": "de", "AT": "de", "CH": "de",
	"FR": "fr", "BE": "fr", "LU": "fr", "ES": "es", "MX": "es", "AR": "es", "CO": "es", "CL": "es", "PE": "es",
	"IT": "it", "NL": "nl", "PT": "pt", "BR": "pt", "PL": "pl", "VN": "vi", "CN": "zh", "TW": "zh", "HK": "zh",
	"JP": "ja", "KR": "ko",
}
