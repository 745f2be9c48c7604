package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// linguaSums lists the SHA-256 of every lingua-go model file the trainer reads, so a different
// input cannot pass for the pinned one.
//
//go:embed sha256.txt
var linguaSums []byte

// checkSums verifies the lingua-go files in dir against sha256.txt.
func checkSums(dir string) error {
	sc := bufio.NewScanner(bytes.NewReader(linguaSums))
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(fields[1])))
		if err != nil {
			return fmt.Errorf("lingua-go model file: %w", err)
		}
		if got := sha256Hex(raw); got != fields[0] {
			return fmt.Errorf("%s: SHA-256 %s, want %s (not %s?)", fields[1], got, fields[0], linguaModule)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("sha256.txt lists no files")
	}
	return sc.Err()
}

func sha256Hex(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}
