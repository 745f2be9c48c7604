package functions_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestAuthorizerLinksNoServiceCode keeps the authorizer small and quick to start: it checks keys
// and must not link the engine, the api layer, any service or model.
func TestAuthorizerLinksNoServiceCode(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "./authorizer").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 10 {
		t.Fatalf("go list -deps gave %d packages", len(deps))
	}
	for _, d := range deps {
		for _, banned := range []string{"/internal/services", "/internal/pipeline", "/internal/api", "/internal/metrics", "jsonschema"} {
			if strings.Contains(d, banned) && !strings.HasSuffix(d, "/internal/apigw/authorizer") {
				t.Errorf("the authorizer links %s", d)
			}
		}
	}
}
