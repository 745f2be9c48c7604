package servicetest

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/services"
)

// Seeds are the texts every service's fuzz target starts from, on top of the seed corpus in the
// package's testdata/fuzz/<FuzzName> directory: short hostile inputs and ordinary prose.
func Seeds() []string {
	seeds := []string{"", "a", "Hello, world!", Prose(120), "\u200b\u200c\ufeff", "\xef\xbf\xbd"}
	for _, c := range Hostile() {
		seeds = append(seeds, c.Make(40))
	}
	return seeds
}

// Fuzz runs svc on arbitrary text: it never panics or errors, and every result passes
// CheckResult and cfg.Check. Call it from a package's FuzzXxx function. Inputs that are not valid
// UTF-8 are repaired first, as the request parser never lets them through.
func Fuzz(f *testing.F, svc services.Service, cfg Config) {
	for _, s := range Seeds() {
		f.Add(s)
	}
	d := svc.Descriptor()
	f.Fuzz(func(t *testing.T, in string) {
		in = strings.ToValidUTF8(in, "\uFFFD")
		res, err := svc.Run(context.Background(), cfg.Request(d, in))
		if err != nil {
			t.Fatalf("Run(%q): %v", in, err)
		}
		if err := cfg.check(d, in, res); err != nil {
			t.Fatalf("Run(%q): %v", in, err)
		}
	})
}
