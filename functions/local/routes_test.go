package main

import (
	"bufio"
	"net"
	"net/http"
	"net/textproto"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/internal/account"
	"github.com/sluice-api/sluice/internal/secrets"
)

// TestListAndDocumentRoutes covers the extensions beyond the interface: the service list and the
// OpenAPI document, both behind the key like every route.
func TestListAndDocumentRoutes(t *testing.T) {
	s := seed(t, "", []string{keyA})
	t.Run("Services", func(t *testing.T) {
		r := s.do(t, http.MethodGet, "/v1/services", keyA, "")
		list, _ := r.body["services"].([]any)
		if r.status != 200 || len(list) != 6 {
			t.Fatalf("GET /v1/services = %d %s", r.status, r.raw)
		}
		var names []string
		for _, d := range list {
			names = append(names, d.(map[string]any)["name"].(string))
		}
		if !slices.IsSorted(names) || !slices.Contains(names, "routing.intent.map") {
			t.Fatalf("service names = %v, want all six sorted", names)
		}
	})
	t.Run("OpenAPI", func(t *testing.T) {
		r := s.do(t, http.MethodGet, "/v1/openapi.json", keyA, "")
		if r.status != 200 || r.body["openapi"] != "3.1.0" {
			t.Fatalf("GET /v1/openapi.json = %d %.200s", r.status, r.raw)
		}
	})
	t.Run("NeedAKey", func(t *testing.T) {
		for _, path := range []string{"/v1/services", "/v1/openapi.json"} {
			if r := s.do(t, http.MethodGet, path, "", ""); r.status != 401 || r.code() != "invalid_api_key" {
				t.Fatalf("GET %s without a key = %d %s", path, r.status, r.raw)
			}
		}
	})
	t.Run("WrongMethod", func(t *testing.T) {
		if r := s.do(t, http.MethodPost, "/v1/services", keyA, "{}"); r.status != 405 || r.header.Get("Allow") != "GET" {
			t.Fatalf("POST /v1/services = %d %v", r.status, r.header)
		}
	})
}

// TestHeaderSpellingOnTheWire reads a raw response: the rate-limit headers go out exactly as the
// interface names them (X-RateLimit-*, not Go's canonical X-Ratelimit-*), and JSON bodies end
// with a newline. Go's HTTP client canonicalizes names, so this test reads the bytes itself.
func TestHeaderSpellingOnTheWire(t *testing.T) {
	s := seed(t, "", []string{keyA})
	for _, key := range []string{keyA, ""} { // a served request and a 401
		conn, err := net.Dial("tcp", strings.TrimPrefix(s.Base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		req := "GET /v1/services/governance.pii.redact HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
		if key != "" {
			req += "Authorization: Bearer " + key + "\r\n"
		}
		if _, err := conn.Write([]byte(req + "\r\n")); err != nil {
			t.Fatal(err)
		}
		tp := textproto.NewReader(bufio.NewReader(conn))
		status, err := tp.ReadLine()
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for {
			line, err := tp.ReadLine()
			if err != nil {
				t.Fatal(err)
			}
			if line == "" {
				break
			}
			names[strings.SplitN(line, ":", 2)[0]] = true
		}
		body, _ := tp.R.ReadString(0)
		conn.Close()
		for _, want := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
			if !names[want] {
				t.Errorf("%s: header %s not on the wire as spelled; got %v", status, want, names)
			}
		}
		if !strings.HasSuffix(body, "}\n") {
			t.Errorf("%s: body does not end with a newline: %q", status, body[max(len(body)-10, 0):])
		}
	}
}

// TestBanner checks what the start-up banner says in each case: a seeded key is acknowledged
// without being printed in full, and no flag that was already given is suggested.
func TestBanner(t *testing.T) {
	seeded := seed(t, "", []string{keyA}).Stdout.String()
	if strings.Contains(seeded, keyA) || !strings.Contains(seeded, "sluice_live_…"+keyA[len(keyA)-4:]) {
		t.Errorf("banner with a seeded key should name the key by its last four characters only:\n%s", seeded)
	}
	if strings.Contains(seeded, "-seed-key") || !strings.Contains(seeded, "curl") {
		t.Errorf("banner with a seeded key suggests the flag again or has no example:\n%s", seeded)
	}
	first := seed(t, "", []string{keyA})
	again := start(t, first.Data).Stdout.String()
	if strings.Contains(again, "sluice_live_A") || !strings.Contains(again, "SLUICE_KEY") {
		t.Errorf("banner on existing data should say how to get a key, and print none:\n%s", again)
	}

	// A seeded key that was rotated away: the banner says it will not work and how to get one
	// that does, and the key stays refused.
	st := backends[0].open(t, first, nil)
	k, err := st.KeyByHash(t.Context(), hashFromData(t, first.Data, keyA))
	if err != nil {
		t.Fatal(err)
	}
	sec, err := secrets.File{Path: filepath.Join(first.Data, "secrets.json")}.Load(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := account.NewManager(st, sec.Pepper, nil).RotateKey(t.Context(), k.Account); err != nil {
		t.Fatal(err)
	}
	rotated := seed(t, first.Data, []string{keyA})
	out := rotated.Stdout.String()
	if !strings.Contains(out, "sluice_live_…AAAA was revoked or rotated away") || !strings.Contains(out, "create one under Keys") ||
		strings.Contains(out, "An account exists for each seeded key") {
		t.Errorf("banner with a rotated seed key should say it is revoked and how to get a working key:\n%s", out)
	}
	// The way to start afresh keeps the flags the server was given (the harness gives -addr) and
	// names a new data directory.
	if want := `unset SLUICE_KEY; make run ARGS="-addr 127.0.0.1:0 -data ` + first.Data + `-new"`; !strings.Contains(out, want) {
		t.Errorf("banner with a rotated seed key should suggest %s:\n%s", want, out)
	}
	if r := rotated.run(t, keyA, runBody("x", `[{"id":"p","service":"governance.pii.redact"}]`)); r.status != http.StatusUnauthorized {
		t.Errorf("the rotated seed key answers %d, want 401", r.status)
	}
}
