// Package lambdart is a small Lambda Runtime API server for tests: a function binary started with
// AWS_LAMBDA_RUNTIME_API pointing at it polls for invocations exactly as it would on AWS Lambda,
// and the test reads back what it answered.
package lambdart

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

const prefix = "/2018-06-01/runtime/"

// Result is what the function answered to one invocation.
type Result struct {
	Body  []byte // the response payload (on success)
	Error *Error // set when the function reported an error
}

// Error is an invocation or init error as the runtime reports it.
type Error struct {
	Message string `json:"errorMessage"`
	Type    string `json:"errorType"`
}

type invocation struct {
	id       string
	payload  []byte
	deadline time.Time
	done     chan Result
}

// Server is a Runtime API endpoint.
type Server struct {
	ln      net.Listener
	srv     *http.Server
	queue   chan *invocation
	mu      sync.Mutex
	pending map[string]*invocation
	initErr chan Error
	seq     int
}

// Start listens on a free loopback port.
func Start() (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("lambdart: listen: %w", err)
	}
	s := &Server{ln: ln, queue: make(chan *invocation, 64), pending: map[string]*invocation{}, initErr: make(chan Error, 1)}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the value for AWS_LAMBDA_RUNTIME_API (host:port).
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// InitError returns the init error the function reported, if any, without waiting.
func (s *Server) InitError() *Error {
	select {
	case e := <-s.initErr:
		return &e
	default:
		return nil
	}
}

// Invoke queues payload for the function and waits up to wait for its answer. deadline is the
// invocation deadline the function sees.
func (s *Server) Invoke(payload []byte, deadline, wait time.Duration) (Result, error) {
	s.mu.Lock()
	s.seq++
	inv := &invocation{
		id: "req-" + strconv.Itoa(s.seq), payload: payload,
		deadline: time.Now().Add(deadline), done: make(chan Result, 1),
	}
	s.pending[inv.id] = inv
	s.mu.Unlock()
	s.queue <- inv
	select {
	case r := <-inv.done:
		return r, nil
	case e := <-s.initErr:
		return Result{}, fmt.Errorf("lambdart: function failed to initialise: %s: %s", e.Type, e.Message)
	case <-time.After(wait):
		return Result{}, fmt.Errorf("lambdart: no answer to %s within %v", inv.id, wait)
	}
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.Path, prefix)
	switch {
	case r.Method == http.MethodGet && path == "invocation/next":
		var inv *invocation
		select {
		case inv = <-s.queue:
		case <-r.Context().Done():
			return
		}
		h := w.Header()
		h.Set("Lambda-Runtime-Aws-Request-Id", inv.id)
		h.Set("Lambda-Runtime-Deadline-Ms", strconv.FormatInt(inv.deadline.UnixMilli(), 10))
		h.Set("Lambda-Runtime-Invoked-Function-Arn", "arn:aws:lambda:eu-west-1:123456789012:function:sluice-test")
		h.Set("Lambda-Runtime-Trace-Id", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1")
		h.Set("Content-Type", "application/json")
		_, _ = w.Write(inv.payload)
	case r.Method == http.MethodPost && path == "init/error":
		var e Error
		_ = json.NewDecoder(r.Body).Decode(&e)
		select {
		case s.initErr <- e:
		default:
		}
		w.WriteHeader(http.StatusAccepted)
	case r.Method == http.MethodPost && strings.HasPrefix(path, "invocation/"):
		rest := strings.TrimPrefix(path, "invocation/")
		id, kind, ok := strings.Cut(rest, "/")
		s.mu.Lock()
		inv := s.pending[id]
		delete(s.pending, id)
		s.mu.Unlock()
		if !ok || inv == nil {
			http.Error(w, "unknown invocation", http.StatusBadRequest)
			return
		}
		body, _ := io.ReadAll(r.Body)
		switch kind {
		case "response":
			inv.done <- Result{Body: body}
		case "error":
			var e Error
			_ = json.Unmarshal(body, &e)
			inv.done <- Result{Error: &e}
		default:
			http.Error(w, "unknown path", http.StatusNotFound)
			return
		}
		w.WriteHeader(http.StatusAccepted)
	default:
		http.Error(w, "unknown path", http.StatusNotFound)
	}
}
