package client_test

import (
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-api/sluice/client"
)

// TestFormatRedactsKey prints a Client every way fmt can (each verb, by pointer and by value,
// and inside other values) and checks that the key never shows, in clear or in hex.
func TestFormatRedactsKey(t *testing.T) {
	const key = "sluice_live_AbCdEfGhIjKlMnOpQrStUvWxYz012345"
	c := client.New(key, client.WithBaseURL("https://api.example.test/prod"))
	type holder struct {
		Exported   *client.Client
		unexported client.Client
	}
	type byValue struct{ C client.Client }
	values := []struct {
		name string
		v    any
	}{
		{"Pointer", c},
		{"Value", *c},
		{"InStructPointerField", holder{Exported: c, unexported: *c}},
		{"InStructValueField", byValue{C: *c}},
		{"InSlice", []*client.Client{c}},
		{"InMap", map[string]client.Client{"c": *c}},
	}
	verbs := []string{"%v", "%+v", "%#v", "%s", "%q", "%x", "%X", "% x", "%#x", "%d", "%t", "%10.4v", "%-80s", "%T", "%p"}
	body := key[len("sluice_live_"):]
	spaced := strings.TrimSpace(fmt.Sprintf("% x", body))
	forbidden := []string{body, hex.EncodeToString([]byte(body)), strings.ToUpper(hex.EncodeToString([]byte(body))), spaced, strings.ToUpper(spaced)}
	for _, tv := range values {
		for _, verb := range verbs {
			t.Run(tv.name+"/"+verb, func(t *testing.T) {
				out := fmt.Sprintf(verb, tv.v)
				for _, f := range forbidden {
					if strings.Contains(out, f) {
						t.Fatalf("Sprintf(%q) = %q: shows the key", verb, out)
					}
				}
				if out == "" {
					t.Fatalf("Sprintf(%q) is empty", verb)
				}
			})
		}
	}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"String", c.String(), "sluice.Client{https://api.example.test/prod, key sluice_live_…2345}"},
		{"GoString", c.GoString(), `&client.Client{base: "https://api.example.test/prod", key: "sluice_live_…2345"}`},
		{"PlusV", fmt.Sprintf("%+v", c), "sluice.Client{https://api.example.test/prod, key sluice_live_…2345}"},
		{"Quoted", fmt.Sprintf("%q", c), `"sluice.Client{https://api.example.test/prod, key sluice_live_…2345}"`},
		{"BadVerb", fmt.Sprintf("%d", c), "%!d(sluice.Client{https://api.example.test/prod, key sluice_live_…2345})"},
		{"MalformedKey", client.New("not-a-key-but-secret").String(), "sluice.Client{http://127.0.0.1:8080, key [redacted]}"},
		{"EmptyKey", client.New("").String(), "sluice.Client{http://127.0.0.1:8080, key (none)}"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Fatalf("got %q, want %q", tc.got, tc.want)
			}
		})
	}
}
