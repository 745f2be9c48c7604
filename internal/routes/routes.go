// Package routes is the one list of the API's routes: the method, the API Gateway resource path
// and the function behind each. The CDK app builds its resources from it, the local gateway and
// the API Gateway adapter route by it, and the API's 404 names it; a test holds it equal to the
// paths of internal/api/openapi.json. It imports nothing of Sluice.
package routes

import (
	"slices"
	"strings"
)

// ID names what a route does, so that each transport can map it to its handler.
type ID string

// The API's routes.
const (
	Run      ID = "run"      // POST /v1/run
	Services ID = "services" // GET /v1/services
	Service  ID = "service"  // GET /v1/services/{name}
	Usage    ID = "usage"    // GET /v1/usage
	OpenAPI  ID = "openapi"  // GET /v1/openapi.json
)

// Functions that serve the routes (functions/<name>, the Lambda function sluice-<stage>-<name>).
const (
	FunctionRun      = "run"
	FunctionServices = "services"
)

// Route is one method of the API.
type Route struct {
	ID     ID
	Method string // one per path
	// Path is the API Gateway resource path: literal segments, and {param} for a segment that is
	// a path parameter (never empty, never containing "/").
	Path     string
	Function string // the function behind it
}

// table is the API, in the order the documentation lists it. Every route needs a valid key.
var table = [...]Route{
	{Run, "POST", "/v1/run", FunctionRun},
	{Services, "GET", "/v1/services", FunctionServices},
	{Service, "GET", "/v1/services/{name}", FunctionServices},
	{Usage, "GET", "/v1/usage", FunctionServices},
	{OpenAPI, "GET", "/v1/openapi.json", FunctionServices},
}

// All returns the routes, a fresh copy each time.
func All() []Route { return slices.Clone(table[:]) }

// ByResource returns the route whose resource path is resource (API Gateway's
// event.Resource, e.g. "/v1/services/{name}").
func ByResource(resource string) (Route, bool) {
	for _, r := range table {
		if r.Path == resource {
			return r, true
		}
	}
	return Route{}, false
}

// Match returns the route that a request path takes, as API Gateway matches it: literal segments
// equal, a {param} segment any one non-empty segment; params maps each parameter's name to its
// segment (nil when the route has none). The method is the caller's to check (a wrong one is a
// 405 with Allow: Route.Method).
func Match(path string) (r Route, params map[string]string, ok bool) {
	got := strings.Split(path, "/")
	for _, r := range table {
		want := strings.Split(r.Path, "/")
		if len(want) != len(got) {
			continue
		}
		params = nil
		match := true
		for i, w := range want {
			if name, isParam := param(w); isParam {
				if got[i] == "" {
					match = false
					break
				}
				if params == nil {
					params = map[string]string{}
				}
				params[name] = got[i]
			} else if w != got[i] {
				match = false
				break
			}
		}
		if match {
			return r, params, true
		}
	}
	return Route{}, nil, false
}

// param reports whether segment is a {param}, and its name.
func param(segment string) (string, bool) {
	if len(segment) > 2 && segment[0] == '{' && segment[len(segment)-1] == '}' {
		return segment[1 : len(segment)-1], true
	}
	return "", false
}

// Summary lists the routes for people: "POST /v1/run, GET /v1/services, … and GET
// /v1/openapi.json".
func Summary() string {
	parts := make([]string, len(table))
	for i, r := range table {
		parts[i] = r.Method + " " + r.Path
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
