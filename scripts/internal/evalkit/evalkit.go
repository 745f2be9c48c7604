// Package evalkit holds what Sluice's training and evaluation commands share: the -data flag
// that finds the public data sets, readers for their formats, binary metrics, a reliability
// (calibration) table and markdown tables.
package evalkit

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// DataHelp tells a user where the data sets come from; it is printed when they are missing.
const DataHelp = "the public data sets (language ID, injections, toxicity, PII, names, NER, intents) live in a " +
	"directory beside the repository (shared/data next to the repository's own directory by default); docs/data.md lists each set's source " +
	"and license. Pass -data DIR to point elsewhere."

// DefaultDataDir is the directory shared/data next to the repository root (the directory
// holding go.mod), found by walking up from the working directory; relative to the working
// directory when there is no go.mod above it.
func DefaultDataDir() string {
	dir, err := os.Getwd()
	if err != nil {
		return filepath.Join("..", "shared", "data")
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", "data")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return filepath.Join("..", "shared", "data")
		}
		dir = parent
	}
}

// DataFlag registers -data on the default flag set.
func DataFlag() *string {
	return flag.String("data", DefaultDataDir(), "directory of the public data sets (see docs/data.md)")
}

// Require returns filepath.Join(data, parts...) when it exists, and otherwise an error that
// names the missing path and says where the data comes from.
func Require(data string, parts ...string) (string, error) {
	p := filepath.Join(append([]string{data}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("data not found: %s does not exist; %s", p, DataHelp)
		}
		return "", fmt.Errorf("data: %w", err)
	}
	return p, nil
}

// ReadLines returns the non-empty, trimmed lines of path.
func ReadLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" {
			out = append(out, l)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// ReadCSV reads a CSV file with a header row into one map per record (column name -> value). A
// UTF-8 byte order mark before the header is dropped. comma is the field separator (',' or '\t').
func ReadCSV(path string, comma rune) ([]map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.Comma = comma
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	header, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if len(header) > 0 {
		header[0] = strings.TrimPrefix(header[0], "\ufeff")
	}
	var out []map[string]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", path, err)
		}
		m := make(map[string]string, len(header))
		for i, h := range header {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		out = append(out, m)
	}
}

// ReadJSONL decodes one T per non-empty line of path.
func ReadJSONL[T any](path string) ([]T, error) {
	lines, err := ReadLines(path)
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(lines))
	for i, l := range lines {
		var v T
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, v)
	}
	return out, nil
}

// ReadJSON decodes the whole of path into a T.
func ReadJSON[T any](path string) (T, error) {
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		return v, err
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return v, fmt.Errorf("%s: %w", path, err)
	}
	return v, nil
}
