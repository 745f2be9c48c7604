// Package modellock reads, writes and checks models.lock, the record of how every shipped model
// file was built: its SHA-256, the trainer and every flag it ran with, every input it read (data
// files and word lists by SHA-256, Go modules by version and go.sum hash), the Go version and
// machine it was built on, and the evaluation figures the model reached. scripts/models uses it
// to lock a model after training and to verify that training again gives the same model.
package modellock

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// FileName is the lock's name at the repository root.
const FileName = "models.lock"

// DataVar stands for the shared data directory in flags, commands and input paths.
const DataVar = "$DATA"

// DataFlag is the flag through which trainers and evaluations take the data directory.
const DataFlag = "data"

// Lock is the content of models.lock.
type Lock struct {
	// Note says what the file is, for a reader who opens it first.
	Note   []string `json:"note"`
	Models []*Model `json:"models"`
}

// Model is one trainer run and the files it wrote.
type Model struct {
	// Name is how scripts/models names the model on its command line.
	Name string `json:"name"`
	// Trainer is the package of the training command, relative to the repository root.
	Trainer string `json:"trainer"`
	// Out is the trainer's flag naming where it writes: a file, or a directory when the value
	// of that flag in Flags is a directory of the repository.
	Out string `json:"out"`
	// Flags holds every flag of the trainer with the value it ran with, defaults included;
	// the data directory is DataVar. Edit a value and lock again to change a setting.
	Flags map[string]string `json:"flags"`
	// Command is the training command written out from Trainer and Flags, to copy and run from
	// the repository root.
	Command string `json:"command"`
	// Files are the model files the trainer wrote, as shipped.
	Files []File `json:"files"`
	// Inputs are what the trainer read.
	Inputs []Input `json:"inputs"`
	// Built says where and how long the locked files were built.
	Built Built `json:"built"`
	// Eval measures the model; verification compares its figures where bytes cannot match.
	Eval Eval `json:"eval"`
}

// File is a file of the repository and its SHA-256.
type File struct {
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// Input is one thing a trainer read: a file (of the data directory when Path starts with
// DataVar, of the repository otherwise), a Go module, or an npm package's tarball.
type Input struct {
	Path   string `json:"path,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	// Module is path@version; Sum is its go.sum hash ("h1:...").
	Module string `json:"module,omitempty"`
	Sum    string `json:"sum,omitempty"`
	// Package is an npm package, name@version, whose tarball (npm pack, kept in NPMDir) the
	// trainer read; SHA256 is the tarball's.
	Package string `json:"package,omitempty"`
	// Why says how the input was found: "read" by the trainer, "generated" when it was read
	// from one of GeneratedDirs (made by a make target, not in git), or "list" recorded by the
	// model file (a word list served beside it).
	Why string `json:"why"`
}

// Built is the machine a model was built on.
type Built struct {
	Go      string `json:"go"`
	OS      string `json:"os"`
	Arch    string `json:"arch"`
	Seconds int    `json:"seconds"`
}

// Eval is the evaluation of a model.
type Eval struct {
	// Command runs from the repository root; DataVar is replaced by the data directory.
	Command []string `json:"command"`
	// Tables selects the tables compared: those under a heading containing one of these
	// (every table when empty).
	Tables []string `json:"tables,omitempty"`
	// Tolerance is the largest absolute difference allowed in any figure (figures are shares
	// between 0 and 1: accuracies, recalls, F1).
	Tolerance float64 `json:"tolerance"`
	// Figures are the figures the locked model reached.
	Figures map[string]float64 `json:"figures"`
}

// Read reads a lock file.
func Read(path string) (*Lock, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read lock: %w", err)
	}
	return Decode(b)
}

// Decode parses a lock and checks that it is complete: every model named once, with a trainer,
// its out flag among its flags, and its command matching its flags.
func Decode(b []byte) (*Lock, error) {
	var l Lock
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("lock: text after the JSON object")
	}
	seen := map[string]bool{}
	for i, m := range l.Models {
		switch {
		case m == nil || m.Name == "":
			return nil, fmt.Errorf("lock: model %d has no name", i)
		case seen[m.Name]:
			return nil, fmt.Errorf("lock: model %s appears twice", m.Name)
		case m.Trainer == "" || m.Out == "":
			return nil, fmt.Errorf("lock: model %s needs a trainer and an out flag", m.Name)
		case m.Flags[m.Out] == "":
			return nil, fmt.Errorf("lock: model %s: flag -%s (where it writes) has no value", m.Name, m.Out)
		}
		seen[m.Name] = true
		if m.Command != "" && m.Command != m.CommandLine() {
			return nil, fmt.Errorf("lock: model %s: command %q does not match its flags (%q); lock it again", m.Name, m.Command, m.CommandLine())
		}
	}
	return &l, nil
}

// Encode writes the lock as indented JSON.
func (l *Lock) Encode() ([]byte, error) {
	b, err := json.MarshalIndent(l, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	return append(b, '\n'), nil
}

// Write writes the lock to path.
func (l *Lock) Write(path string) error {
	b, err := l.Encode()
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Model returns the model named name.
func (l *Lock) Model(name string) (*Model, error) {
	for _, m := range l.Models {
		if m.Name == name {
			return m, nil
		}
	}
	names := make([]string, len(l.Models))
	for i, m := range l.Models {
		names[i] = m.Name
	}
	return nil, fmt.Errorf("no model %q in the lock (models: %s)", name, strings.Join(names, ", "))
}

// Args returns the trainer's arguments: every flag in name order as -name=value, with the
// data directory for DataVar and out for the out flag's value.
func (m *Model) Args(data, out string) []string {
	var args []string
	for _, name := range slices.Sorted(maps.Keys(m.Flags)) {
		v := m.Flags[name]
		switch {
		case name == m.Out:
			v = out
		case v == DataVar:
			v = data
		}
		args = append(args, "-"+name+"="+v)
	}
	return args
}

// CommandLine is the training command as a reader runs it from the repository root.
func (m *Model) CommandLine() string {
	parts := []string{"go", "run", m.Trainer}
	for _, a := range m.Args(DataVar, m.Flags[m.Out]) {
		parts = append(parts, shellQuote(a))
	}
	return strings.Join(parts, " ")
}

// EvalArgs returns the evaluation command with the data directory in place of DataVar.
func (m *Model) EvalArgs(data string) []string {
	out := make([]string, len(m.Eval.Command))
	for i, a := range m.Eval.Command {
		out[i] = strings.ReplaceAll(a, DataVar, data)
	}
	return out
}

// shellQuote quotes a for a POSIX shell when it holds anything but safe characters.
func shellQuote(a string) string {
	safe := true
	for _, r := range a {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_=./,:+@$", r)) {
			safe = false
			break
		}
	}
	if safe && a != "" {
		return a
	}
	return "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
}

// HashFile returns the hex SHA-256 of the file at path.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// InputPath returns where an input file is: under data for DataVar paths, under root otherwise.
func InputPath(root, data, p string) string {
	if rest, ok := strings.CutPrefix(p, DataVar+"/"); ok {
		return filepath.Join(data, filepath.FromSlash(rest))
	}
	return filepath.Join(root, filepath.FromSlash(p))
}

// NPMDir is where the training make targets put the tarballs of npm packages (npm pack), relative
// to the repository root; it is not part of the repository (.gitignore).
const NPMDir = ".data/npm"

// tarballName matches npm pack's file name of an unscoped package: name-version.tgz.
var tarballName = regexp.MustCompile(`^([a-z0-9][a-z0-9._-]*)-(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\.tgz$`)

// PackageOfTarball returns name@version of an npm pack file name, false for another name.
func PackageOfTarball(file string) (string, bool) {
	m := tarballName.FindStringSubmatch(file)
	if m == nil {
		return "", false
	}
	return m[1] + "@" + m[2], true
}

// TarballPath returns where the tarball of the npm package name@version is under root.
func TarballPath(root, pkg string) string {
	name, version, _ := strings.Cut(pkg, "@")
	return filepath.Join(root, filepath.FromSlash(NPMDir), name+"-"+version+".tgz")
}
