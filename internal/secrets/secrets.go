// Package secrets holds Sluice's two secrets, the API-key pepper and the tokenization key, and the
// port through which they are loaded. Adapters: a local file in the data directory (this package)
// and Secrets Manager (secrets/awssm).
package secrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Secrets are the service's secret keys. Both are at least 32 bytes.
type Secrets struct {
	// Pepper is the HMAC key API keys are hashed with.
	Pepper []byte
	// TokenKey is the HMAC key deterministic PII tokens are derived from.
	TokenKey []byte
}

// MinKeyBytes is the least length of each secret.
const MinKeyBytes = 32

// Source loads the secrets.
type Source interface {
	Load(ctx context.Context) (Secrets, error)
}

// Validate reports whether both secrets are long enough.
func (s Secrets) Validate() error {
	if len(s.Pepper) < MinKeyBytes || len(s.TokenKey) < MinKeyBytes {
		return fmt.Errorf("secrets: pepper and tokenization key need at least %d bytes each", MinKeyBytes)
	}
	return nil
}

// fileFormat is the JSON document of a secrets file (and of the Secrets Manager secret).
type fileFormat struct {
	Pepper   string `json:"pepper"`
	TokenKey string `json:"tokenization_key"`
}

// Parse decodes the JSON document {"pepper": base64, "tokenization_key": base64}.
func Parse(doc []byte) (Secrets, error) {
	var f fileFormat
	if err := json.Unmarshal(doc, &f); err != nil {
		return Secrets{}, fmt.Errorf("secrets: parse: %w", err)
	}
	var s Secrets
	var err error
	if s.Pepper, err = base64.StdEncoding.DecodeString(f.Pepper); err != nil {
		return Secrets{}, fmt.Errorf("secrets: parse pepper: %w", err)
	}
	if s.TokenKey, err = base64.StdEncoding.DecodeString(f.TokenKey); err != nil {
		return Secrets{}, fmt.Errorf("secrets: parse tokenization key: %w", err)
	}
	return s, s.Validate()
}

// Generate returns new random secrets as the JSON document Parse reads.
func Generate() ([]byte, error) {
	p, t := make([]byte, MinKeyBytes), make([]byte, MinKeyBytes)
	if _, err := rand.Read(p); err != nil {
		return nil, fmt.Errorf("secrets: generate: %w", err)
	}
	if _, err := rand.Read(t); err != nil {
		return nil, fmt.Errorf("secrets: generate: %w", err)
	}
	return json.MarshalIndent(fileFormat{
		Pepper:   base64.StdEncoding.EncodeToString(p),
		TokenKey: base64.StdEncoding.EncodeToString(t),
	}, "", "  ")
}

// File loads secrets from a JSON file, creating it with fresh random secrets (mode 0600) the first
// time. Several processes may race to create it: exactly one file wins and all read it.
type File struct {
	Path string
}

var _ Source = File{}

// Load reads (or first creates) the file.
func (f File) Load(context.Context) (Secrets, error) {
	doc, err := os.ReadFile(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		if err := f.create(); err != nil {
			return Secrets{}, err
		}
		doc, err = os.ReadFile(f.Path)
	}
	if err != nil {
		return Secrets{}, fmt.Errorf("secrets: read %s: %w", f.Path, err)
	}
	return Parse(doc)
}

func (f File) create() error {
	doc, err := Generate()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return fmt.Errorf("secrets: create dir: %w", err)
	}
	// Write to a private temp file, then link it into place: the file appears whole or not at
	// all, and a concurrent creator that lost the race reads the winner's file.
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".secrets-*")
	if err != nil {
		return fmt.Errorf("secrets: create: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(doc); err != nil {
		tmp.Close()
		return fmt.Errorf("secrets: write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("secrets: write: %w", err)
	}
	if err := os.Link(tmp.Name(), f.Path); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("secrets: install %s: %w", f.Path, err)
	}
	return nil
}
