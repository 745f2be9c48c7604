package pii

import (
	"context"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// findNames runs the name tagger (package names) over text. It also returns the words the
// tagger's rules took back as parts of firms, places and titles, where a name found elsewhere in
// the text must not be repeated. m is the tagger; nil means the embedded one.
func findNames(ctx context.Context, text string, m *names.Model) (found []cand, takenBack []Span, err error) {
	if m == nil {
		if m, err = names.Default(); err != nil {
			return nil, nil, err
		}
	}
	spans, back, err := m.TagAll(ctx, text)
	if err != nil {
		return nil, nil, err
	}
	found = make([]cand, len(spans))
	for i, s := range spans {
		found[i] = cand{start: s.Start, end: s.End, k: kName}
	}
	takenBack = make([]Span, len(back))
	for i, s := range back {
		takenBack[i] = Span{Type: TypeName, Start: s.Start, End: s.End}
	}
	return found, takenBack, nil
}

// canonicalName collapses runs of white space in a name.
func canonicalName(s string) string { return strings.Join(strings.Fields(s), " ") }
