package pii

import (
	"testing"

	"github.com/sluice-api/sluice/internal/services"
	"github.com/sluice-api/sluice/internal/services/servicetest"
)

var fuzzParams = services.Params{"entities": Types(), "deny": []string{"project falcon", "ACME-42"}, "allow": []string{"support@acme.com"}}

// FuzzRedact: on any text, redaction never panics or errors, leaves valid UTF-8, and is the
// input with exactly the reported spans replaced (none of the values it reported remains).
func FuzzRedact(f *testing.F) {
	svc := newRedact(f)
	servicetest.Fuzz(f, svc, conformanceConfig(svc, fuzzParams))
}

// FuzzTokenize: on any text, tokenization never panics or errors, leaves valid UTF-8, and its
// map restores the input.
func FuzzTokenize(f *testing.F) {
	svc := newTokenize(f)
	servicetest.Fuzz(f, svc, conformanceConfig(svc, fuzzParams))
}
