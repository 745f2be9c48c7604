package pii

import (
	"context"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// findNames runs the name tagger (package names) over text. m is the tagger; nil means the
// embedded one. highRecall raises its bias of B by names.HighRecallBias.
func findNames(ctx context.Context, text string, m *names.Model, highRecall bool) ([]cand, error) {
	if m == nil {
		var err error
		if m, err = names.Default(); err != nil {
			return nil, err
		}
	}
	if highRecall {
		m = m.WithBias(m.Bias() + names.HighRecallBias)
	}
	spans, err := m.Tag(ctx, text)
	if err != nil {
		return nil, err
	}
	found := make([]cand, len(spans))
	for i, s := range spans {
		found[i] = cand{start: s.Start, end: s.End, k: kName}
	}
	return found, nil
}

// canonicalName collapses runs of white space in a name.
func canonicalName(s string) string { return strings.Join(strings.Fields(s), " ") }
