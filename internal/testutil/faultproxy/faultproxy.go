// Package faultproxy is a fault-injecting proxy for tests against a DynamoDB-compatible server
// (dynalite): an HTTP-aware proxy on a TCP listener that forwards every request and, for a
// chosen share of writes, loses the answer. It reads the server's answer, so the write has been
// applied, and then closes the client's connection without answering: exactly what a client
// sees when a response is lost on the way back. The SDK retries such a call, and the retry
// meets the effect of the first attempt.
//
// A second mode (FailWrite) answers one chosen write with a 500 InternalServerError after
// forwarding it, and every retry of it (the same operation and body) with a 500 without
// forwarding it: a write that was applied, whose every answer the client sees fail, as when a
// server errs after the write took effect.
//
// Writes are recognised by their X-Amz-Target (PutItem, UpdateItem, DeleteItem, and the batch
// and transaction writes); only answers that report success (HTTP 200) are lost, because only
// those mean the server applied the write. Reads, table management and refused writes always
// pass. Which writes lose their answer is drawn from a PRNG seeded by Config.Seed, in the order
// the proxy receives writes: a sequential client meets the same losses in every run; with
// concurrent clients the order, and so the victims, vary, but the share does not.
package faultproxy

import (
	"bufio"
	"bytes"
	"fmt"
	"hash/crc32"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// writeOps are the DynamoDB operations that change items.
var writeOps = map[string]bool{
	"PutItem": true, "UpdateItem": true, "DeleteItem": true,
	"BatchWriteItem": true, "TransactWriteItems": true,
}

// Config says which answers the proxy loses.
type Config struct {
	// Share is the probability, in [0, 1], that a successful write loses its answer.
	Share float64
	// Seed seeds the draw; the same seed and the same sequence of writes lose the same answers.
	Seed uint64
}

// Stats counts what the proxy saw.
type Stats struct {
	Requests int64            // every request forwarded
	Writes   int64            // successful writes (HTTP 200 answers to write operations)
	Dropped  int64            // successful writes whose answer was lost: len(Lost)
	ByOp     map[string]int64 // lost answers per operation
	// Lost lists the successful writes whose answer was lost, by their 0-based place among
	// the successful writes the proxy saw: the proxy's own record of its draws.
	Lost []int64
	// Failed counts the 500 answers of FailWrite: the chosen write's and its retries'.
	Failed int64
}

// Proxy is a running proxy.
type Proxy struct {
	ln       net.Listener
	upstream string // host:port
	share    float64
	client   *http.Client

	mu     sync.Mutex // guards rng, script, byOp, lost, conns, failMatch and failed
	rng    *rand.Rand
	script []bool
	byOp   map[string]int64
	lost   []int64
	conns  map[net.Conn]struct{}
	// failMatch chooses the write FailWrite fails; failed is its operation and body once chosen.
	failMatch func(op string, body []byte) bool
	failed    []byte

	requests, writes, fails atomic.Int64
	closed                  atomic.Bool
	wg                      sync.WaitGroup
}

// Start listens on a free loopback port and forwards to upstream (http://host:port).
func Start(upstream string, cfg Config) (*Proxy, error) {
	if cfg.Share < 0 || cfg.Share > 1 {
		return nil, fmt.Errorf("faultproxy: share %v is not in [0, 1]", cfg.Share)
	}
	host := strings.TrimPrefix(upstream, "http://")
	if host == upstream || strings.Contains(host, "/") {
		return nil, fmt.Errorf("faultproxy: upstream %q is not http://host:port", upstream)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("faultproxy: listen: %w", err)
	}
	p := &Proxy{
		ln: ln, upstream: host, share: cfg.Share,
		client: &http.Client{
			Transport: &http.Transport{
				DisableCompression: true, // forward the client's Accept-Encoding as it is
				// One connection per forwarded request: a kept-alive connection that the
				// upstream closes as it idles (Node's 5 s keep-alive) fails the next POST, which
				// the transport will not replay, and the client would see a loss nobody chose.
				DisableKeepAlives: true,
			},
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
		rng:   rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0x9e3779b97f4a7c15)),
		byOp:  map[string]int64{},
		conns: map[net.Conn]struct{}{},
	}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// URL is the proxy's endpoint, http://127.0.0.1:<port>.
func (p *Proxy) URL() string { return "http://" + p.ln.Addr().String() }

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	by := make(map[string]int64, len(p.byOp))
	for k, v := range p.byOp {
		by[k] = v
	}
	lost := slices.Clone(p.lost)
	p.mu.Unlock()
	return Stats{Requests: p.requests.Load(), Writes: p.writes.Load(), Dropped: int64(len(lost)), ByOp: by, Lost: lost, Failed: p.fails.Load()}
}

// Close stops listening, closes every client connection and waits for the handlers.
func (p *Proxy) Close() error {
	if !p.closed.CompareAndSwap(false, true) {
		return nil
	}
	err := p.ln.Close()
	p.mu.Lock()
	for c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
	p.wg.Wait()
	p.client.CloseIdleConnections()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return // closed
		}
		p.mu.Lock()
		if p.closed.Load() {
			p.mu.Unlock()
			c.Close()
			return
		}
		p.conns[c] = struct{}{}
		p.mu.Unlock()
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			p.serve(c)
			p.mu.Lock()
			delete(p.conns, c)
			p.mu.Unlock()
			c.Close()
		}()
	}
}

// serve forwards the requests of one client connection until it ends or an answer is lost.
func (p *Proxy) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		req, err := http.ReadRequest(br)
		if err != nil {
			return // the client closed the connection (or sent garbage)
		}
		body, err := io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return
		}
		op := operation(req.Header.Get("X-Amz-Target"))
		if p.isRetryOfFailed(op, body) {
			p.requests.Add(1)
			if err := p.answer500(c, req); err != nil || req.Close {
				return
			}
			continue
		}
		resp, respBody, err := p.forward(req, body)
		if err != nil {
			// The upstream is gone: the client sees a lost connection, as it would.
			return
		}
		p.requests.Add(1)
		if writeOps[op] && resp.StatusCode == http.StatusOK && p.chooseFailed(op, body) {
			p.writes.Add(1)
			if err := p.answer500(c, req); err != nil || req.Close {
				return
			}
			continue
		}
		if writeOps[op] && resp.StatusCode == http.StatusOK {
			if p.lose(op, p.writes.Add(1)-1) {
				return // applied upstream, never answered: the deferred Close drops the connection
			}
		}
		resp.Body = io.NopCloser(bytes.NewReader(respBody))
		resp.ContentLength = int64(len(respBody))
		resp.TransferEncoding = nil
		resp.Close = req.Close
		if err := resp.Write(c); err != nil || req.Close {
			return
		}
	}
}

// forward sends req with body to the upstream and reads the whole answer.
func (p *Proxy) forward(req *http.Request, body []byte) (*http.Response, []byte, error) {
	out, err := http.NewRequest(req.Method, "http://"+p.upstream+req.URL.RequestURI(), bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	out.Header = req.Header.Clone()
	out.Host = req.Host // SigV4 signs the Host header: keep the client's
	resp, err := p.client.Do(out)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, nil, err
	}
	return resp, b, nil
}

// Script decides the fate of the next successful writes, in the order they reach the proxy:
// true loses the answer, false passes it. Once the script is used up the share applies again.
// With a share of 0 and one client at a time, a test loses exactly the answers it names.
func (p *Proxy) Script(lose ...bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.script = append(p.script, lose...)
}

// FailWrite arms the proxy: the next successful write for which match(operation, body) is
// true ("UpdateItem", the request's JSON) is applied upstream and answered with a 500
// InternalServerError, and so is, without reaching the upstream, every later request with the
// same operation and body: the SDK's retries of it. Only one write is failed per call.
func (p *Proxy) FailWrite(match func(op string, body []byte) bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.failMatch, p.failed = match, nil
}

// chooseFailed reports whether the applied write op with body is the one FailWrite fails, and
// records it.
func (p *Proxy) chooseFailed(op string, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.failMatch == nil || !p.failMatch(op, body) {
		return false
	}
	p.failMatch, p.failed = nil, append([]byte(op+"\n"), body...)
	return true
}

// isRetryOfFailed reports whether op with body repeats the write FailWrite failed.
func (p *Proxy) isRetryOfFailed(op string, body []byte) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.failed != nil && bytes.Equal(p.failed, append([]byte(op+"\n"), body...))
}

// answer500 writes DynamoDB's 500 InternalServerError answer to c.
func (p *Proxy) answer500(c net.Conn, req *http.Request) error {
	p.fails.Add(1)
	body := []byte(`{"__type":"com.amazonaws.dynamodb.v20120810#InternalServerError","message":"injected by faultproxy"}`)
	resp := &http.Response{
		StatusCode: http.StatusInternalServerError, ProtoMajor: 1, ProtoMinor: 1,
		Header: http.Header{
			"Content-Type": {"application/x-amz-json-1.0"},
			"X-Amz-Crc32":  {strconv.FormatUint(uint64(crc32.ChecksumIEEE(body)), 10)}, // as DynamoDB sends
		},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Close:         req.Close,
	}
	return resp.Write(c)
}

// lose decides whether the answer of a successful write of op, the proxy's nth, is lost.
func (p *Proxy) lose(op string, nth int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	var lost bool
	if len(p.script) > 0 {
		lost, p.script = p.script[0], p.script[1:]
	} else {
		lost = p.share > 0 && p.rng.Float64() < p.share
	}
	if !lost {
		return false
	}
	p.byOp[op]++
	p.lost = append(p.lost, nth)
	return true
}

// operation returns the operation of an X-Amz-Target such as "DynamoDB_20120810.PutItem".
func operation(target string) string {
	if i := strings.LastIndexByte(target, '.'); i >= 0 {
		return target[i+1:]
	}
	return target
}

// StartT starts a proxy for the test and closes it when the test ends.
func StartT(t testing.TB, upstream string, cfg Config) *Proxy {
	t.Helper()
	p, err := Start(upstream, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}
