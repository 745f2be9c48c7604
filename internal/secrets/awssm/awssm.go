// Package awssm loads Sluice's secrets from AWS Secrets Manager. It is the secrets.Source adapter
// used in Lambda: the secret is fetched once per container and kept for the container's life.
//
// The secret's SecretString is the JSON document secrets.Parse reads:
//
//	{"pepper": "<base64>", "tokenization_key": "<base64>"}
//
// Errors say which secret failed and why, never what it holds. A caller branches with errors.Is:
// ErrNotFound (the secret does not exist), ErrUnavailable (throttled, a server-side fault or the
// service could not be reached: retry later) and ErrMalformed (the secret exists but is not a
// valid document).
package awssm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager"
	"github.com/aws/aws-sdk-go-v2/service/secretsmanager/types"

	"github.com/sluice-api/sluice/internal/secrets"
)

var (
	// ErrNotFound is wrapped by Load's error when the secret does not exist
	// (ResourceNotFoundException).
	ErrNotFound = errors.New("awssm: secret not found")
	// ErrUnavailable is wrapped by Load's error when Secrets Manager throttled the call, failed
	// on its side (5xx, InternalServiceError), could not be reached, or did not answer in time.
	// Such a failure is transient: a later Load tries again.
	ErrUnavailable = errors.New("awssm: secrets manager unavailable")
	// ErrMalformed is wrapped by Load's error when the secret exists but is not a valid secrets
	// document (no SecretString, not JSON, not base64, keys too short).
	ErrMalformed = errors.New("awssm: secret is malformed")
)

// fetchTimeout bounds one fetch. The fetch is detached from the caller that started it (several
// callers share it), so it needs a deadline of its own.
const fetchTimeout = 10 * time.Second

// getSecretValueAPI is the one call Source makes; *secretsmanager.Client implements it.
type getSecretValueAPI interface {
	GetSecretValue(ctx context.Context, in *secretsmanager.GetSecretValueInput,
		optFns ...func(*secretsmanager.Options)) (*secretsmanager.GetSecretValueOutput, error)
}

// Source loads secrets from one Secrets Manager secret. The first successful Load is cached;
// concurrent Loads share one in-flight fetch; a failed fetch is not cached, so the next Load
// retries. The zero value is not usable; call New.
type Source struct {
	client   getSecretValueAPI
	secretID string
	timeout  time.Duration

	mu       sync.Mutex
	loaded   bool
	cached   secrets.Secrets
	inflight *fetch
}

// fetch is one GetSecretValue call that any number of Loads wait on.
type fetch struct {
	done chan struct{} // closed when s and err are set
	s    secrets.Secrets
	err  error
}

var _ secrets.Source = (*Source)(nil)

// New returns a Source reading secretID (a name or ARN) with client.
func New(client *secretsmanager.Client, secretID string) *Source {
	return &Source{client: client, secretID: secretID, timeout: fetchTimeout}
}

// Load returns the secrets, fetching them on the first call (or the first call after a failed
// fetch). A caller whose ctx ends while it waits gets ctx's error; the fetch itself carries on
// for the other waiters and for the cache.
func (s *Source) Load(ctx context.Context) (secrets.Secrets, error) {
	s.mu.Lock()
	if s.loaded {
		defer s.mu.Unlock()
		return s.cached, nil
	}
	f := s.inflight
	if f == nil {
		f = &fetch{done: make(chan struct{})}
		s.inflight = f
		// Keep ctx's values (tracing) but not its cancellation: other callers share this fetch.
		go s.run(context.WithoutCancel(ctx), f)
	}
	s.mu.Unlock()

	select {
	case <-f.done:
		return f.s, f.err
	case <-ctx.Done():
		return secrets.Secrets{}, fmt.Errorf("awssm: load secret %q: %w", s.secretID, ctx.Err())
	}
}

// run performs f and publishes its outcome: on success into the cache, in every case to f's
// waiters. The in-flight slot is cleared so that, after a failure, the next Load fetches again.
func (s *Source) run(ctx context.Context, f *fetch) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	f.s, f.err = s.get(ctx)

	s.mu.Lock()
	if f.err == nil {
		s.loaded, s.cached = true, f.s
	}
	s.inflight = nil
	s.mu.Unlock()
	close(f.done)
}

// get calls GetSecretValue once (the client's retryer may make several attempts) and parses the
// result.
func (s *Source) get(ctx context.Context) (secrets.Secrets, error) {
	out, err := s.client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(s.secretID)})
	if err != nil {
		if kind := classify(err); kind != nil {
			return secrets.Secrets{}, fmt.Errorf("%w: get secret %q: %w", kind, s.secretID, err)
		}
		return secrets.Secrets{}, fmt.Errorf("awssm: get secret %q: %w", s.secretID, err)
	}
	if out.SecretString == nil {
		return secrets.Secrets{}, fmt.Errorf("%w: secret %q has no SecretString", ErrMalformed, s.secretID)
	}
	sec, err := secrets.Parse([]byte(*out.SecretString))
	if err != nil {
		return secrets.Secrets{}, fmt.Errorf("%w: secret %q: %w", ErrMalformed, s.secretID, redact(err))
	}
	return sec, nil
}

// throttles recognises the SDK's throttling error codes (ThrottlingException and its kin).
var throttles = retry.ThrottleErrorCode{Codes: retry.DefaultThrottleErrorCodes}

// classify returns ErrNotFound or ErrUnavailable when err is one of those kinds, else nil.
func classify(err error) error {
	var notFound *types.ResourceNotFoundException
	if errors.As(err, &notFound) {
		return ErrNotFound
	}
	var internal *types.InternalServiceError
	var status interface{ HTTPStatusCode() int }
	var conn interface{ ConnectionError() bool }
	switch {
	case throttles.IsErrorThrottle(err) == aws.TrueTernary,
		errors.As(err, &internal),
		errors.As(err, &status) && (status.HTTPStatusCode() >= http.StatusInternalServerError ||
			status.HTTPStatusCode() == http.StatusTooManyRequests),
		errors.As(err, &conn) && conn.ConnectionError(),
		errors.Is(err, context.DeadlineExceeded):
		return ErrUnavailable
	}
	return nil
}

// redact drops the one part of a parse error that can quote the document: encoding/json's syntax
// error names the offending character. The offset is kept; every other parse error (type
// mismatch, base64 offset, key length) carries no secret material.
func redact(err error) error {
	var syntax *json.SyntaxError
	if errors.As(err, &syntax) {
		return fmt.Errorf("secrets: parse: invalid JSON at byte offset %d", syntax.Offset)
	}
	return err
}

// Key reads the secret secretID (a name or ARN) as one key: the bytes of its SecretString as
// they are, at least secrets.MinKeyBytes (Secrets Manager's generated strings, such as the
// copy key's). Errors wrap ErrNotFound, ErrUnavailable or ErrMalformed as Load's do, and never
// quote the secret.
func Key(ctx context.Context, client *secretsmanager.Client, secretID string) ([]byte, error) {
	return loadKey(ctx, client, secretID)
}

func loadKey(ctx context.Context, client getSecretValueAPI, secretID string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	out, err := client.GetSecretValue(ctx, &secretsmanager.GetSecretValueInput{SecretId: aws.String(secretID)})
	if err != nil {
		if kind := classify(err); kind != nil {
			return nil, fmt.Errorf("%w: get secret %q: %w", kind, secretID, err)
		}
		return nil, fmt.Errorf("awssm: get secret %q: %w", secretID, err)
	}
	if out.SecretString == nil || len(*out.SecretString) < secrets.MinKeyBytes {
		return nil, fmt.Errorf("%w: secret %q is not a key of at least %d bytes", ErrMalformed, secretID, secrets.MinKeyBytes)
	}
	return []byte(*out.SecretString), nil
}
