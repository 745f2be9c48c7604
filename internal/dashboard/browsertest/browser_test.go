package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/sluice-api/sluice/internal/testutil/localserver"
)

// Chromium is where Debian's chromium package puts the browser; SLUICE_CHROMIUM overrides it.
const Chromium = "/usr/bin/chromium"

var signInLink = regexp.MustCompile(`http://\S+/dashboard/sign-in\?token=[A-Za-z0-9_-]{43}`)

// result is the last line the script prints.
type result struct {
	Checks  []string `json:"checks"`
	Figures struct {
		Pages map[string]struct {
			Bytes    int      `json:"bytes"`
			Requests int      `json:"requests"`
			HTML     int      `json:"html"`
			FCP      *float64 `json:"fcp_ms"`
			DCL      float64  `json:"dom_content_loaded_ms"`
			Load     float64  `json:"load_ms"`
		} `json:"pages"`
	} `json:"figures"`
}

func TestBrowser(t *testing.T) {
	chromium := os.Getenv("SLUICE_CHROMIUM")
	if chromium == "" {
		chromium = Chromium
	}
	if fi, err := os.Stat(chromium); err != nil || fi.Mode()&0o111 == 0 {
		t.Skipf("SKIP the dashboard's browser test: no Chromium at %s (apt-get install chromium, or set SLUICE_CHROMIUM)", chromium)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the browser test needs Node.js: %v", err)
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(root, "node_modules", "playwright-core", "package.json")); err != nil {
		t.Fatalf("playwright-core is not installed: run `npm ci` in %s (make test does)", root)
	}
	script, err := filepath.Abs(filepath.Join("testdata", "e2e.mjs"))
	if err != nil {
		t.Fatal(err)
	}

	bin, err := localserver.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	srv := localserver.Start(t, bin, "")
	link := signInLink.FindString(srv.Stdout.String())
	if link == "" {
		t.Fatalf("the server printed no sign-in link:\n%s", srv.Stdout.String())
	}

	shots := os.Getenv("SLUICE_SCREENSHOTS")
	if shots == "" {
		shots = t.TempDir()
	} else if err := os.MkdirAll(shots, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"SLUICE_BASE="+srv.Base, "SLUICE_LINK="+link, "SLUICE_CHROMIUM="+chromium, "SLUICE_SHOTS="+shots,
		"PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the browser script failed (%v):\n%s\nserver log:\n%s", err, stderr.String(), tail(srv.Stderr.String(), 4000))
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var res result
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil {
		t.Fatalf("the script's last line is not its result: %v\n%s", err, stdout.String())
	}
	if len(res.Checks) < 50 {
		t.Errorf("only %d checks ran: %v", len(res.Checks), res.Checks)
	}
	t.Logf("%d checks passed in Chromium; screenshots in %s", len(res.Checks), shots)
	for page, f := range res.Figures.Pages {
		fcp := "n/a"
		if f.FCP != nil {
			fcp = strings.TrimRight(strings.TrimRight(jsonNumber(*f.FCP), "0"), ".")
		}
		t.Logf("%-22s %6d bytes in %d requests (HTML %d), first contentful paint %s ms, load %.0f ms", page, f.Bytes, f.Requests, f.HTML, fcp, f.Load)
	}

	// Nothing the browser typed or was shown may reach the server's log: not the playground's
	// text, not a sign-in token, not a key.
	logs := srv.Stderr.String()
	for _, secret := range []string{"Jane Doe", "jane@example.com", "sluice_live_", "token="} {
		if strings.Contains(logs, secret) {
			t.Errorf("the server log contains %q", secret)
		}
	}
}

func jsonNumber(f float64) string {
	b, _ := json.Marshal(f)
	return string(b)
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// repoRoot is the directory holding go.mod and package.json above the working directory.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if isFile(filepath.Join(dir, "go.mod")) && isFile(filepath.Join(dir, "package.json")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no directory above the working directory holds go.mod and package.json")
		}
		dir = parent
	}
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
