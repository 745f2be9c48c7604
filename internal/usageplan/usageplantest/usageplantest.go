// Package usageplantest is an in-memory API Gateway for tests: an httptest server that speaks
// the part of the API Gateway REST API that usageplan uses (API keys and usage plan keys), with
// JSON bodies as the AWS SDK sends and reads them. It records every request.
package usageplantest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
)

// Request is one request the server received.
type Request struct {
	Method        string
	Path          string
	Query         string
	Body          map[string]any
	Authorization string
}

// Key is an API key the server holds.
type Key struct {
	ID      string
	Name    string
	Value   string
	Enabled bool
}

// Server is the fake API Gateway.
type Server struct {
	URL string

	mu       sync.Mutex
	keys     map[string]Key
	plans    map[string]map[string]bool // usage plan id -> key ids
	requests []Request
	seq      int
	failures []failure
}

type failure struct {
	method, path string
	status       int
}

// Start serves a fake API Gateway with the given usage plans for the test's lifetime.
func Start(t testing.TB, planIDs ...string) *Server {
	t.Helper()
	s := &Server{keys: map[string]Key{}, plans: map[string]map[string]bool{}}
	for _, p := range planIDs {
		s.plans[p] = map[string]bool{}
	}
	hs := httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(hs.Close)
	s.URL = hs.URL
	return s
}

// FailNext makes the next request with method whose path starts with path fail with status
// (and the API Gateway error type of that status). The SDK retries 429 and 5xx answers, so use a
// 4xx such as 400 or 403 to make a call fail.
func (s *Server) FailNext(method, path string, status int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = append(s.failures, failure{method, path, status})
}

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// Keys returns the API keys, sorted by id.
func (s *Server) Keys() []Key {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Key, 0, len(s.keys))
	for _, k := range s.keys {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// PlanOf returns the usage plans the key with value is attached to, sorted.
func (s *Server) PlanOf(value string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for plan, ids := range s.plans {
		for id := range ids {
			if s.keys[id].Value == value {
				out = append(out, plan)
			}
		}
	}
	sort.Strings(out)
	return out
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Authorization: r.Header.Get("Authorization")}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &req.Body); err != nil {
			writeError(w, http.StatusBadRequest, "BadRequestException", "body is not a JSON object")
			return
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	for i, f := range s.failures {
		if f.method == r.Method && strings.HasPrefix(r.URL.Path, f.path) {
			s.failures = append(s.failures[:i], s.failures[i+1:]...)
			writeError(w, f.status, errorType(f.status), "injected failure")
			return
		}
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodPost && r.URL.Path == "/apikeys":
		s.createKey(w, req)
	case r.Method == http.MethodGet && r.URL.Path == "/apikeys":
		s.listKeys(w, r)
	case r.Method == http.MethodDelete && len(parts) == 2 && parts[0] == "apikeys":
		if _, ok := s.keys[parts[1]]; !ok {
			writeError(w, http.StatusNotFound, "NotFoundException", "Invalid API Key identifier specified")
			return
		}
		delete(s.keys, parts[1])
		for _, ids := range s.plans {
			delete(ids, parts[1])
		}
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPost && len(parts) == 3 && parts[0] == "usageplans" && parts[2] == "keys":
		s.attach(w, parts[1], req)
	case r.Method == http.MethodDelete && len(parts) == 4 && parts[0] == "usageplans" && parts[2] == "keys":
		ids, ok := s.plans[parts[1]]
		if !ok || !ids[parts[3]] {
			writeError(w, http.StatusNotFound, "NotFoundException", "Invalid Usage Plan Key identifier specified")
			return
		}
		delete(ids, parts[3])
		w.WriteHeader(http.StatusAccepted)
	default:
		writeError(w, http.StatusNotFound, "NotFoundException", "unknown route "+r.Method+" "+r.URL.Path)
	}
}

func (s *Server) createKey(w http.ResponseWriter, req Request) {
	name, _ := req.Body["name"].(string)
	value, _ := req.Body["value"].(string)
	enabled, _ := req.Body["enabled"].(bool)
	if len(value) < 20 {
		writeError(w, http.StatusBadRequest, "BadRequestException", "API Key value should be at least 20 characters")
		return
	}
	for _, k := range s.keys {
		if k.Value == value {
			writeError(w, http.StatusConflict, "ConflictException", "API Key value already exists")
			return
		}
	}
	s.seq++
	k := Key{ID: fmt.Sprintf("k%04d", s.seq), Name: name, Value: value, Enabled: enabled}
	s.keys[k.ID] = k
	writeJSON(w, http.StatusCreated, keyJSON(k, true))
}

func (s *Server) listKeys(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	values := q.Get("includeValues") == "true"
	var items []map[string]any
	for _, k := range s.keys {
		if strings.HasPrefix(k.Name, q.Get("name")) {
			items = append(items, keyJSON(k, values))
		}
	}
	sort.Slice(items, func(i, j int) bool { return items[i]["id"].(string) < items[j]["id"].(string) })
	writeJSON(w, http.StatusOK, map[string]any{"item": items})
}

func (s *Server) attach(w http.ResponseWriter, plan string, req Request) {
	ids, ok := s.plans[plan]
	if !ok {
		writeError(w, http.StatusNotFound, "NotFoundException", "Invalid Usage Plan ID specified")
		return
	}
	keyID, _ := req.Body["keyId"].(string)
	k, ok := s.keys[keyID]
	if !ok || req.Body["keyType"] != "API_KEY" {
		writeError(w, http.StatusNotFound, "NotFoundException", "Invalid API Key identifier specified")
		return
	}
	for p, other := range s.plans {
		if other[keyID] {
			writeError(w, http.StatusConflict, "ConflictException", "key is already in usage plan "+p)
			return
		}
	}
	ids[keyID] = true
	writeJSON(w, http.StatusCreated, map[string]any{"id": k.ID, "name": k.Name, "type": "API_KEY", "value": k.Value})
}

func errorType(status int) string {
	switch status {
	case http.StatusNotFound:
		return "NotFoundException"
	case http.StatusConflict:
		return "ConflictException"
	case http.StatusTooManyRequests:
		return "TooManyRequestsException"
	case http.StatusForbidden:
		return "AccessDeniedException"
	}
	if status >= 500 {
		return "ServiceUnavailableException"
	}
	return "BadRequestException"
}

func keyJSON(k Key, withValue bool) map[string]any {
	m := map[string]any{"id": k.ID, "name": k.Name, "enabled": k.Enabled}
	if withValue {
		m["value"] = k.Value
	}
	return m
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func writeError(w http.ResponseWriter, status int, typ, msg string) {
	w.Header().Set("X-Amzn-ErrorType", typ)
	writeJSON(w, status, map[string]string{"message": msg})
}
