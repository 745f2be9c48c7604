package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Fingerprint returns the hex SHA-256 of body's canonical JSON: objects with sorted keys, no
// insignificant whitespace, numbers as written. Two bodies that differ only in formatting or key
// order have the same fingerprint, so a retry that re-serialises its body is still a repeat.
func Fingerprint(body []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // encoding/json sorts map keys
		return "", fmt.Errorf("fingerprint: %w", err)
	}
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return hex.EncodeToString(sum[:]), nil
}

// SHA256 returns the hex SHA-256 of s's UTF-8 bytes exactly as given.
func SHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
