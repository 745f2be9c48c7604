package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Fingerprint decodes body as Parse does and returns the hex SHA-256 of its canonical JSON (see
// Plan.Fingerprint). A body Parse refuses as JSON has no fingerprint.
func Fingerprint(body []byte) (string, error) {
	doc, err := decodeBody(body)
	if err != nil {
		return "", fmt.Errorf("pipeline: fingerprint: %w", err)
	}
	fp, ferr := doc.fingerprint()
	if ferr != nil {
		return "", fmt.Errorf("pipeline: fingerprint: %w", ferr)
	}
	return fp, nil
}

// SHA256 returns the hex SHA-256 of s's UTF-8 bytes exactly as given.
func SHA256(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}
