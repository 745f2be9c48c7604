package routes

import (
	"encoding/json"
	"maps"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestTableIsTheOpenAPIDocument: the routes are exactly the paths and methods of the OpenAPI
// document the API serves, and each path has one method.
func TestTableIsTheOpenAPIDocument(t *testing.T) {
	raw, err := os.ReadFile("../api/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for path, ops := range doc.Paths {
		for method := range ops {
			switch method {
			case "get", "put", "post", "delete", "options", "head", "patch", "trace":
				if _, dup := want[path]; dup {
					t.Errorf("%s has two methods in the document; a route has one", path)
				}
				want[path] = strings.ToUpper(method)
			}
		}
	}
	got := map[string]string{}
	for _, r := range All() {
		if _, dup := got[r.Path]; dup {
			t.Errorf("%s is in the table twice", r.Path)
		}
		got[r.Path] = r.Method
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("routes %v, want the document's %v", got, want)
	}
}

func TestMatch(t *testing.T) {
	for _, tc := range []struct {
		path   string
		id     ID // "" for no route
		params map[string]string
	}{
		{"/v1/run", Run, nil},
		{"/v1/services", Services, nil},
		{"/v1/services/governance.pii.redact", Service, map[string]string{"name": "governance.pii.redact"}},
		{"/v1/usage", Usage, nil},
		{"/v1/openapi.json", OpenAPI, nil},
		{"/v1/services/", "", nil},
		{"/v1/services/a/b", "", nil},
		{"/v1/run/", "", nil},
		{"/v1/Run", "", nil},
		{"/v1", "", nil},
		{"/", "", nil},
		{"", "", nil},
		{"/v2/run", "", nil},
		{"//v1/run", "", nil},
	} {
		t.Run(tc.path, func(t *testing.T) {
			r, params, ok := Match(tc.path)
			if ok != (tc.id != "") || r.ID != tc.id || !maps.Equal(params, tc.params) {
				t.Fatalf("Match(%q) = %+v, %v, %v; want %q, %v", tc.path, r, params, ok, tc.id, tc.params)
			}
		})
	}
}

func TestByResource(t *testing.T) {
	for _, r := range All() {
		if got, ok := ByResource(r.Path); !ok || got != r {
			t.Errorf("ByResource(%q) = %+v, %v", r.Path, got, ok)
		}
		if r.Function != FunctionRun && r.Function != FunctionServices {
			t.Errorf("%s is served by %q, not a function", r.Path, r.Function)
		}
	}
	for _, resource := range []string{"/v1/services/governance.pii.redact", "/v1", "", "/dashboard"} {
		if r, ok := ByResource(resource); ok {
			t.Errorf("ByResource(%q) = %+v", resource, r)
		}
	}
}

func TestSummaryAndCopies(t *testing.T) {
	const want = "POST /v1/run, GET /v1/services, GET /v1/services/{name}, GET /v1/usage and GET /v1/openapi.json"
	if got := Summary(); got != want {
		t.Errorf("Summary() = %q, want %q", got, want)
	}
	a := All()
	a[0].Path = "/changed"
	if slices.Equal(a, All()) {
		t.Error("All returns the table itself, not a copy")
	}
}
