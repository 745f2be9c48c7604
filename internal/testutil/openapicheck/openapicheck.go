// Package openapicheck validates real HTTP responses of Sluice against its OpenAPI 3.1 document
// (internal/api/openapi.json) with kin-openapi, so the document cannot drift from the code: the
// end-to-end tests pass every response they receive through Check.
package openapicheck

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/sluice-api/sluice/internal/api"
)

// Checker validates responses against the document.
type Checker struct {
	doc    *openapi3.T
	router routers.Router
	errors *openapi3.SchemaRef
}

// New loads and validates the document.
func New() (*Checker, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.OpenAPIDocument())
	if err != nil {
		return nil, fmt.Errorf("openapicheck: load: %w", err)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("openapicheck: the document is not valid OpenAPI: %w", err)
	}
	// Match requests to any host: tests run on a free port, not the documented servers.
	doc.Servers = nil
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("openapicheck: router: %w", err)
	}
	errBody := doc.Components.Schemas["ErrorBody"]
	if errBody == nil {
		return nil, fmt.Errorf("openapicheck: the document has no ErrorBody schema")
	}
	return &Checker{doc: doc, router: router, errors: errBody}, nil
}

// Doc returns the loaded document.
func (c *Checker) Doc() *openapi3.T { return c.doc }

// Check validates one response to req: status, headers and body against the operation's
// documented response. A request for an undocumented route must have been answered 404
// not_found or 405 method_not_allowed with the error envelope.
func (c *Checker) Check(req *http.Request, status int, header http.Header, body []byte) error {
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		if status != http.StatusNotFound && status != http.StatusMethodNotAllowed {
			return fmt.Errorf("%s %s: undocumented route answered %d", req.Method, req.URL.Path, status)
		}
		v, err := decode(body)
		if err != nil {
			return fmt.Errorf("%s %s: %d body: %w", req.Method, req.URL.Path, status, err)
		}
		if err := c.errors.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			return fmt.Errorf("%s %s: %d body is not the error envelope: %w", req.Method, req.URL.Path, status, err)
		}
		return nil
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc},
	}
	canonical := http.Header{} // header names are case-insensitive; the validator looks them up canonically
	for k, v := range header {
		canonical[http.CanonicalHeaderKey(k)] = v
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: status, Header: canonical,
		Options: &openapi3filter.Options{IncludeResponseStatus: true},
	}
	out.SetBodyBytes(body)
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		return fmt.Errorf("%s %s: %d response does not match the OpenAPI document: %w", req.Method, req.URL.Path, status, err)
	}
	return nil
}

func decode(body []byte) (any, error) {
	var v any
	if err := json.Unmarshal(bytes.TrimSpace(body), &v); err != nil {
		return nil, err
	}
	return v, nil
}
