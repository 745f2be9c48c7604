package corpus

import (
	"embed"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"path"
	"slices"
	"strconv"
	"strings"
)

// examplesFS holds the hand-written training examples, one file per language (examples/<lang>.txt).
//
//go:embed examples/*.txt
var examplesFS embed.FS

// DefaultCap is how many sentences one template yields at most.
const DefaultCap = 12

// Own returns the hand-written examples of every language, expanded from their templates. See
// Expand for the file format.
func Own() ([]Example, error) {
	files, err := fs.Glob(examplesFS, "examples/*.txt")
	if err != nil {
		return nil, err
	}
	var out []Example
	for _, f := range files {
		b, err := examplesFS.ReadFile(f)
		if err != nil {
			return nil, err
		}
		lang := strings.TrimSuffix(path.Base(f), ".txt")
		ex, err := Expand(lang, string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		out = append(out, ex...)
	}
	return out, nil
}

// Expand turns one language's example file into examples. The format, line by line:
//
//	# a comment
//	@name = value | value | ...     a slot; a value may start with m: or f: (its grammatical gender);
//	                                @other includes the values of slot other
//	== toxic KIND LABEL,LABEL [cap=N]   the templates below are toxic, of this kind, with these labels
//	== ok KIND [cap=N]                  the templates below are not toxic
//	== pair KIND LABEL,LABEL [cap=N]    each template below gives a toxic and a non-toxic side
//	a template line
//
// In a pair section, a slot written {name?} is filled from @name- on the toxic side and from
// @name+ on the non-toxic side (kind KIND_contrast), so both sides share every other word: the
// model learns what is said, not the frame it is said in.
//
// In a template, {name} is any value of the slot, [a|b|c] any of the alternatives, and <x|y>
// agrees with the gender of the first gendered slot value chosen (x for m, y for f). A template
// yields every combination when there are at most cap of them (DefaultCap unless the section
// says), else cap distinct combinations drawn with a PCG seeded by the template's FNV-1a hash, so
// the same file always gives the same examples. Duplicate sentences are dropped.
func Expand(lang, text string) ([]Example, error) {
	slots := map[string][]string{}
	var (
		out     []Example
		section *Example
		pair    bool
		limit   = DefaultCap
		seen    = map[string]bool{}
	)
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || strings.HasPrefix(line, "#"):
			continue
		case strings.HasPrefix(line, "@"):
			name, vals, ok := strings.Cut(line[1:], "=")
			if !ok {
				return nil, fmt.Errorf("line %d: slot without =", n+1)
			}
			var vs []string
			for _, v := range splitTop(vals) {
				v = strings.TrimSpace(v)
				if ref, ok := strings.CutPrefix(v, "@"); ok {
					if slots[ref] == nil {
						return nil, fmt.Errorf("line %d: unknown slot %s", n+1, v)
					}
					vs = append(vs, slots[ref]...)
				} else if v != "" {
					vs = append(vs, v)
				}
			}
			if len(vs) == 0 {
				return nil, fmt.Errorf("line %d: empty slot", n+1)
			}
			slots[strings.TrimSpace(name)] = vs
		case strings.HasPrefix(line, "=="):
			f := strings.Fields(line[2:])
			if len(f) < 2 || (f[0] != "toxic" && f[0] != "ok" && f[0] != "pair") {
				return nil, fmt.Errorf("line %d: want == toxic|ok|pair KIND [LABELS] [cap=N]", n+1)
			}
			pair = f[0] == "pair"
			section = &Example{Toxic: f[0] != "ok", Lang: lang, Source: "own", Group: f[1]}
			limit = DefaultCap
			for _, x := range f[2:] {
				if c, ok := strings.CutPrefix(x, "cap="); ok {
					v, err := strconv.Atoi(c)
					if err != nil || v < 1 {
						return nil, fmt.Errorf("line %d: bad cap %q", n+1, c)
					}
					limit = v
					continue
				}
				if !section.Toxic {
					return nil, fmt.Errorf("line %d: labels on a non-toxic section", n+1)
				}
				for _, l := range strings.Split(x, ",") {
					if !slices.Contains(AllLabels, l) {
						return nil, fmt.Errorf("line %d: unknown label %q", n+1, l)
					}
					section.Labels = append(section.Labels, l)
				}
			}
			slices.Sort(section.Labels)
			if section.Toxic && len(section.Labels) == 0 {
				return nil, fmt.Errorf("line %d: toxic section without labels", n+1)
			}
		default:
			if section == nil {
				return nil, fmt.Errorf("line %d: template before the first == section", n+1)
			}
			sides := []string{""}
			if pair {
				sides = []string{"-", "+"}
			}
			for _, pol := range sides {
				texts, err := expandTemplate(line, slots, pol, limit)
				if err != nil {
					return nil, fmt.Errorf("line %d: %w", n+1, err)
				}
				for _, t := range texts {
					if seen[t] {
						continue
					}
					seen[t] = true
					e := *section
					e.Text = t
					if pol == "+" {
						e.Toxic, e.Labels, e.Group = false, nil, section.Group+"_contrast"
					}
					out = append(out, e)
				}
			}
		}
	}
	return out, nil
}

// splitTop splits s at the | that are not inside <...> or [...].
func splitTop(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '<', '[':
			depth++
		case '>', ']':
			depth--
		case '|':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// part is a literal (choices == nil) or a choice among alternatives. Parts of the same slot
// share one choice.
type part struct {
	lit     string
	choices []string
	slot    string
}

func parseTemplate(t string, slots map[string][]string, pol string) ([]part, error) {
	var parts []part
	for t != "" {
		i := strings.IndexAny(t, "{[")
		if i < 0 {
			parts = append(parts, part{lit: t})
			break
		}
		if i > 0 {
			parts = append(parts, part{lit: t[:i]})
		}
		closer := map[byte]string{'{': "}", '[': "]"}[t[i]]
		j := strings.Index(t[i:], closer)
		if j < 0 {
			return nil, fmt.Errorf("unclosed %c in %q", t[i], t)
		}
		body := t[i+1 : i+j]
		if t[i] == '{' {
			if name, ok := strings.CutSuffix(body, "?"); ok {
				if pol == "" {
					return nil, fmt.Errorf("{%s} outside a pair section", body)
				}
				body = name + pol
			}
			vals, ok := slots[body]
			if !ok {
				return nil, fmt.Errorf("unknown slot {%s}", body)
			}
			parts = append(parts, part{choices: vals, slot: body})
		} else {
			parts = append(parts, part{choices: splitTop(body)})
		}
		t = t[i+j+1:]
	}
	return parts, nil
}

func expandTemplate(t string, slots map[string][]string, pol string, limit int) ([]string, error) {
	parts, err := parseTemplate(t, slots, pol)
	if err != nil {
		return nil, err
	}
	total := 1
	for i, p := range parts {
		if p.choices != nil && first(parts, i) == i {
			total *= len(p.choices)
			if total > 1<<20 {
				total = 1 << 20
			}
		}
	}
	var combos [][]int
	if total <= limit {
		for k := range total {
			combos = append(combos, decode(k, parts))
		}
	} else {
		h := fnv.New64a()
		h.Write([]byte(pol + t))
		rng := rand.New(rand.NewPCG(h.Sum64(), 0x5eed))
		picked := map[string]bool{}
		for tries := 0; len(combos) < limit && tries < limit*20; tries++ {
			c := make([]int, len(parts))
			for i, p := range parts {
				if p.choices != nil && first(parts, i) == i {
					c[i] = rng.IntN(len(p.choices))
				}
			}
			tie(parts, c)
			key := fmt.Sprint(c)
			if !picked[key] {
				picked[key] = true
				combos = append(combos, c)
			}
		}
	}
	out := make([]string, 0, len(combos))
	for _, c := range combos {
		s, err := render(parts, c)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", t, err)
		}
		out = append(out, s)
	}
	return out, nil
}

// decode turns k into one index per choice part (mixed radix).
func decode(k int, parts []part) []int {
	c := make([]int, len(parts))
	for i, p := range parts {
		if p.choices != nil && first(parts, i) == i {
			c[i] = k % len(p.choices)
			k /= len(p.choices)
		}
	}
	tie(parts, c)
	return c
}

// first returns the index of the first part of the same slot as parts[i] (i itself for an
// alternative).
func first(parts []part, i int) int {
	if parts[i].slot == "" {
		return i
	}
	for j := range i {
		if parts[j].slot == parts[i].slot {
			return j
		}
	}
	return i
}

// tie copies the choice of a slot's first part to its later parts.
func tie(parts []part, c []int) {
	for i := range parts {
		if j := first(parts, i); j != i {
			c[i] = c[j]
		}
	}
}

// render joins the chosen parts and resolves gender agreement.
func render(parts []part, c []int) (string, error) {
	var b strings.Builder
	gender := ""
	for i, p := range parts {
		if p.choices == nil {
			b.WriteString(p.lit)
			continue
		}
		v := p.choices[c[i]]
		if g, rest, ok := strings.Cut(v, ":"); ok && (g == "m" || g == "f") {
			if gender == "" {
				gender = g
			}
			v = rest
		}
		b.WriteString(v)
	}
	s := b.String()
	var out strings.Builder
	for s != "" {
		i := strings.IndexByte(s, '<')
		if i < 0 {
			out.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '>')
		if j < 0 {
			return "", fmt.Errorf("unclosed <")
		}
		out.WriteString(s[:i])
		alts := strings.Split(s[i+1:i+j], "|")
		if gender == "f" && len(alts) > 1 {
			out.WriteString(alts[1])
		} else {
			out.WriteString(alts[0])
		}
		s = s[i+j+1:]
	}
	return strings.Join(strings.Fields(out.String()), " "), nil
}
