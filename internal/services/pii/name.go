package pii

import (
	"context"
	"strings"

	"github.com/sluice-api/sluice/internal/services/pii/names"
)

// findNames runs the name tagger (package names) over text.
func findNames(ctx context.Context, text string) ([]cand, error) {
	m, err := names.Default()
	if err != nil {
		return nil, err
	}
	spans, err := m.Tag(ctx, text)
	if err != nil {
		return nil, err
	}
	out := make([]cand, len(spans))
	for i, s := range spans {
		out[i] = cand{start: s.Start, end: s.End, k: kName}
	}
	return out, nil
}

// canonicalName collapses runs of white space in a name.
func canonicalName(s string) string { return strings.Join(strings.Fields(s), " ") }
