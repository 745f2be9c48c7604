package awssm

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
)

const secretARN = "arn:aws:secretsmanager:eu-west-1:123456789012:secret:sluice/keys-AbCdEf"

// reply is one answer of the fake Secrets Manager.
type reply struct {
	status int
	body   string
}

func ok(secretString string) reply {
	b, _ := json.Marshal(map[string]string{
		"ARN": secretARN, "Name": "sluice/keys", "SecretString": secretString,
		"VersionId": "5e2a7c1b-0000-4000-8000-000000000001",
	})
	return reply{http.StatusOK, string(b)}
}

func fault(status int, typ string) reply {
	return reply{status, `{"__type":"` + typ + `","message":"the fake says no"}`}
}

// fakeSM speaks the Secrets Manager JSON protocol for GetSecretValue. It answers the i-th call with
// replies[i] (the last reply repeats) and records what it was sent.
type fakeSM struct {
	t       *testing.T
	replies []reply
	gate    chan struct{} // when non-nil, each call waits for it to close before answering
	arrived chan struct{} // when non-nil, receives a value as each call arrives (buffer it)

	calls atomic.Int64
	mu    sync.Mutex
	ids   []string
}

func (f *fakeSM) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := f.calls.Add(1) - 1
	if r.Method != http.MethodPost || r.URL.Path != "/" {
		f.t.Errorf("request %s %s, want POST /", r.Method, r.URL.Path)
	}
	if got := r.Header.Get("X-Amz-Target"); got != "secretsmanager.GetSecretValue" {
		f.t.Errorf("X-Amz-Target = %q", got)
	}
	if got := r.Header.Get("Content-Type"); got != "application/x-amz-json-1.1" {
		f.t.Errorf("Content-Type = %q", got)
	}
	if !strings.HasPrefix(r.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ") {
		f.t.Errorf("request is not SigV4-signed: Authorization = %q", r.Header.Get("Authorization"))
	}
	var in struct{ SecretId string }
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &in); err != nil {
		f.t.Errorf("body %q: %v", body, err)
	}
	f.mu.Lock()
	f.ids = append(f.ids, in.SecretId)
	f.mu.Unlock()
	if f.arrived != nil {
		f.arrived <- struct{}{}
	}
	if f.gate != nil {
		<-f.gate
	}
	rep := f.replies[min(int(n), len(f.replies)-1)]
	w.Header().Set("Content-Type", "application/x-amz-json-1.1")
	w.Header().Set("X-Amzn-Requestid", "req-1")
	w.WriteHeader(rep.status)
	io.WriteString(w, rep.body)
}

func (f *fakeSM) secretIDs() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.ids...)
}

// newSource starts f and returns a Source pointed at it. The client retries at most twice, with
// no backoff and no retry quota, so failures are quick and deterministic.
func newSource(t *testing.T, f *fakeSM) *Source {
	t.Helper()
	f.t = t
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	client := secretsmanager.New(secretsmanager.Options{
		Region:       "eu-west-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret-access-key", ""),
		BaseEndpoint: aws.String(srv.URL),
		Retryer: retry.NewStandard(func(o *retry.StandardOptions) {
			o.MaxAttempts = 2
			o.Backoff = retry.BackoffDelayerFunc(func(int, error) (time.Duration, error) { return 0, nil })
			o.RateLimiter = ratelimit.None
		}),
	})
	return New(client, secretARN)
}

func key(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

func doc(pepper, tokenKey []byte) string {
	b, _ := json.Marshal(map[string]string{
		"pepper":           base64.StdEncoding.EncodeToString(pepper),
		"tokenization_key": base64.StdEncoding.EncodeToString(tokenKey),
	})
	return string(b)
}

func TestLoadSharesOneFetch(t *testing.T) {
	f := &fakeSM{replies: []reply{ok(doc(key('p'), key('t')))}, gate: make(chan struct{})}
	src := newSource(t, f)

	const n = 32
	got := make([][2][]byte, n)
	errs := make([]error, n)
	waiting := make(chan struct{}, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := src.Load(signalWait(t.Context(), waiting))
			got[i], errs[i] = [2][]byte{s.Pepper, s.TokenKey}, err
		})
	}
	// Hold the one request until every Load waits on a fetch: they all overlap it.
	for range n {
		<-waiting
	}
	close(f.gate)
	wg.Wait()

	for i := range n {
		if errs[i] != nil {
			t.Fatalf("Load %d: %v", i, errs[i])
		}
		if !bytes.Equal(got[i][0], key('p')) || !bytes.Equal(got[i][1], key('t')) {
			t.Fatalf("Load %d decoded the wrong secrets", i)
		}
	}
	if _, err := src.Load(t.Context()); err != nil {
		t.Fatal(err)
	}
	if c := f.calls.Load(); c != 1 {
		t.Fatalf("HTTP calls = %d, want 1 for %d concurrent Loads and one later Load", c, n)
	}
	if ids := f.secretIDs(); len(ids) != 1 || ids[0] != secretARN {
		t.Fatalf("SecretId sent = %q, want [%q]", ids, secretARN)
	}
}

// waitSignal is a context that reports when a Load starts waiting: Load asks for Done only in
// the select that waits on its fetch, after it joined or started that fetch (the fetch itself
// runs on a context detached from the caller's, which never asks the caller's Done).
type waitSignal struct {
	context.Context
	once    sync.Once
	waiting chan<- struct{}
}

func signalWait(ctx context.Context, waiting chan<- struct{}) context.Context {
	return &waitSignal{Context: ctx, waiting: waiting}
}

func (w *waitSignal) Done() <-chan struct{} {
	w.once.Do(func() { w.waiting <- struct{}{} })
	return w.Context.Done()
}

func TestLoadErrors(t *testing.T) {
	valid := doc(key('p'), key('t'))
	for _, tc := range []struct {
		name  string
		fail  reply // the failing answer, repeated for every attempt of the first Load
		want  error // the kind Load's error wraps
		calls int64 // HTTP calls made by the failing Load (the client's retryer allows 2)
		leak  string
	}{
		{"NotFound", fault(400, "ResourceNotFoundException"), ErrNotFound, 1, ""},
		{"Throttled", fault(400, "ThrottlingException"), ErrUnavailable, 2, ""},
		{"InternalServiceError", fault(500, "InternalServiceError"), ErrUnavailable, 2, ""},
		{"BadGateway", reply{http.StatusBadGateway, "<html>bad gateway</html>"}, ErrUnavailable, 2, ""},
		{"NotJSON", ok("Zm9vYmFy-not-json"), ErrMalformed, 1, "'Z'"},
		{"NotBase64", ok(`{"pepper":"s3cr3t!!value","tokenization_key":"s3cr3t!!value"}`), ErrMalformed, 1, "s3cr3t"},
		{"ShortKeys", ok(doc([]byte("short-pepper"), []byte("short-token-key"))), ErrMalformed, 1,
			base64.StdEncoding.EncodeToString([]byte("short-pepper"))},
		{"NoSecretString", reply{http.StatusOK, `{"ARN":"` + secretARN + `","SecretBinary":"AAAA"}`}, ErrMalformed, 1, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The failure comes first, once per attempt; every later call succeeds.
			f := &fakeSM{}
			for range tc.calls {
				f.replies = append(f.replies, tc.fail)
			}
			f.replies = append(f.replies, ok(valid))
			src := newSource(t, f)

			_, err := src.Load(t.Context())
			if err == nil {
				t.Fatal("Load succeeded, want an error")
			}
			for _, kind := range []error{ErrNotFound, ErrUnavailable, ErrMalformed} {
				if got, want := errors.Is(err, kind), kind == tc.want; got != want {
					t.Fatalf("errors.Is(err, %v) = %v, want %v; err = %v", kind, got, want, err)
				}
			}
			if !strings.Contains(err.Error(), secretARN) {
				t.Errorf("error does not name the secret: %v", err)
			}
			if tc.leak != "" && strings.Contains(err.Error(), tc.leak) {
				t.Errorf("error quotes the secret value: %v", err)
			}
			if c := f.calls.Load(); c != tc.calls {
				t.Fatalf("HTTP calls = %d, want %d", c, tc.calls)
			}

			// A failure is not cached: the next Load fetches again and succeeds.
			s, err := src.Load(t.Context())
			if err != nil {
				t.Fatalf("Load after the failure: %v", err)
			}
			if !bytes.Equal(s.Pepper, key('p')) || !bytes.Equal(s.TokenKey, key('t')) {
				t.Fatal("Load after the failure decoded the wrong secrets")
			}
			if c := f.calls.Load(); c != tc.calls+1 {
				t.Fatalf("HTTP calls = %d, want %d", c, tc.calls+1)
			}
		})
	}
}

func TestLoadUnreachableIsUnavailable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close() // nothing listens there any more
	client := secretsmanager.New(secretsmanager.Options{
		Region:       "eu-west-1",
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret-access-key", ""),
		BaseEndpoint: aws.String(url),
		Retryer:      aws.NopRetryer{},
	})
	_, err := New(client, secretARN).Load(t.Context())
	if !errors.Is(err, ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
}

func TestLoadCallerCancelDoesNotAbortSharedFetch(t *testing.T) {
	f := &fakeSM{replies: []reply{ok(doc(key('p'), key('t')))}, gate: make(chan struct{})}
	src := newSource(t, f)

	f.arrived = make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(t.Context())
	first := make(chan error, 1)
	go func() {
		_, err := src.Load(ctx)
		first <- err
	}()
	<-f.arrived // the fetch is in flight, held by the gate
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled Load: err = %v, want context.Canceled", err)
	}

	second := make(chan error, 1)
	waiting := make(chan struct{}, 1)
	go func() {
		_, err := src.Load(signalWait(t.Context(), waiting))
		second <- err
	}()
	<-waiting // the second Load waits on a fetch: the one the cancelled caller started
	close(f.gate)
	if err := <-second; err != nil {
		t.Fatalf("Load sharing the fetch: %v", err)
	}
	if c := f.calls.Load(); c != 1 {
		t.Fatalf("HTTP calls = %d, want 1: the cancelled caller's fetch is the one the next caller shares", c)
	}
}

// TestKey: a key secret is its SecretString's bytes as they are; a short or missing one is
// malformed (and the error does not quote it), a missing secret not found, a 5xx unavailable.
func TestKey(t *testing.T) {
	generated := "AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh" // 44 letters and digits, as generated
	for _, tc := range []struct {
		name  string
		reply reply
		want  []byte
		err   error
	}{
		{"Generated", ok(generated), []byte(generated), nil},
		{"Short", ok("short-secret"), nil, ErrMalformed},
		{"NotFound", fault(http.StatusBadRequest, "ResourceNotFoundException"), nil, ErrNotFound},
		{"Unavailable", fault(http.StatusInternalServerError, "InternalServiceError"), nil, ErrUnavailable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := newSource(t, &fakeSM{replies: []reply{tc.reply}})
			got, err := loadKey(t.Context(), src.client, secretARN)
			if !errors.Is(err, tc.err) || !bytes.Equal(got, tc.want) {
				t.Fatalf("loadKey = %q, %v; want %q, %v", got, err, tc.want, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "short-secret") {
				t.Fatalf("the error quotes the secret: %v", err)
			}
		})
	}
}
