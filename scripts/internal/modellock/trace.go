package modellock

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// The trainer's reads are recorded by running it under strace -f -e trace=open,openat,openat2:
// every file it opened for reading, in every thread and child process.

var (
	// openCall matches the start of an open call: pid, call, and the path argument.
	openCall = regexp.MustCompile(`^(\d+)\s+(?:open|openat|openat2)\((?:[^,]+,\s*)?("(?:[^"\\]|\\.)*")(.*)$`)
	// resumed matches the end of a call strace printed in two parts.
	resumed = regexp.MustCompile(`^(\d+)\s+<\.\.\. (?:open|openat|openat2) resumed>(.*)$`)
	// result is the return value at the end of a finished call.
	result = regexp.MustCompile(`\)\s*=\s*(-?\d+)`)
)

// ParseTrace returns the paths a strace -f log shows opened successfully for reading only,
// each once, in the order first opened.
func ParseTrace(r io.Reader) ([]string, error) {
	pending := map[string]string{} // pid -> the rest of an unfinished call, path first
	seen := map[string]bool{}
	var paths []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		var pid, quoted, rest string
		if m := openCall.FindStringSubmatch(line); m != nil {
			pid, quoted, rest = m[1], m[2], m[3]
			if strings.HasSuffix(rest, "<unfinished ...>") {
				pending[pid] = quoted + "\x00" + rest
				continue
			}
		} else if m := resumed.FindStringSubmatch(line); m != nil {
			p, ok := pending[m[1]]
			if !ok {
				continue
			}
			delete(pending, m[1])
			quoted, rest, _ = strings.Cut(p, "\x00")
			rest += m[2]
		} else {
			continue
		}
		res := result.FindStringSubmatch(rest)
		if res == nil || strings.HasPrefix(res[1], "-") {
			continue // failed, or never returned
		}
		if strings.Contains(rest, "O_WRONLY") || strings.Contains(rest, "O_RDWR") || strings.Contains(rest, "O_DIRECTORY") {
			continue
		}
		path, err := strconv.Unquote(quoted)
		if err != nil {
			return nil, fmt.Errorf("trace: path %s: %w", quoted, err)
		}
		if !seen[path] {
			seen[path] = true
			paths = append(paths, path)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("trace: %w", err)
	}
	return paths, nil
}

// Places says where a trainer's inputs may come from.
type Places struct {
	Root     string // the repository (the trainer's working directory)
	Data     string // the shared data directory
	ModCache string // GOMODCACHE
}

// rootSkip are files of the repository the go command reads, not the trainer.
var rootSkip = []string{"go.mod", "go.sum", "go.work", "go.work.sum"}

// Classify turns opened paths into inputs: regular files of the data directory (as DataVar
// paths) and of the repository (outside .git), npm tarballs of NPMDir (as packages), and the Go
// modules of the module cache whose files
// were read (path@version, without a sum). Everything else (the system, the Go toolchain, the
// trainer's own temporary files) is no input of the model.
func Classify(paths []string, at Places) (files []Input, modules []string, err error) {
	abs := func(p string) (string, error) {
		if p == "" {
			return "", nil
		}
		a, err := filepath.Abs(p)
		if err != nil {
			return "", err
		}
		if r, err := filepath.EvalSymlinks(a); err == nil {
			return r, nil
		}
		return a, nil
	}
	root, err := abs(at.Root)
	if err != nil {
		return nil, nil, err
	}
	data, err := abs(at.Data)
	if err != nil {
		return nil, nil, err
	}
	cache, err := abs(at.ModCache)
	if err != nil {
		return nil, nil, err
	}
	seenFile := map[string]bool{}
	seenMod := map[string]bool{}
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		p, err := abs(p)
		if err != nil {
			return nil, nil, err
		}
		if st, err := os.Stat(p); err != nil || !st.Mode().IsRegular() {
			continue
		}
		var in Input
		switch {
		case cache != "" && within(cache, p):
			rel, _ := filepath.Rel(cache, p)
			mod, ok := moduleOf(filepath.ToSlash(rel))
			if ok && !seenMod[mod] {
				seenMod[mod] = true
				modules = append(modules, mod)
			}
			continue
		case data != "" && within(data, p):
			rel, _ := filepath.Rel(data, p)
			in.Path = DataVar + "/" + filepath.ToSlash(rel)
		case within(filepath.Join(root, filepath.FromSlash(NPMDir)), p):
			pkg, ok := PackageOfTarball(filepath.Base(p))
			if !ok || seenFile["npm:"+pkg] {
				continue
			}
			seenFile["npm:"+pkg] = true
			sum, err := HashFile(p)
			if err != nil {
				return nil, nil, err
			}
			files = append(files, Input{Package: pkg, SHA256: sum, Why: "read"})
			continue
		case within(root, p):
			rel, _ := filepath.Rel(root, p)
			rel = filepath.ToSlash(rel)
			if rel == ".git" || strings.HasPrefix(rel, ".git/") || slices.Contains(rootSkip, rel) {
				continue
			}
			in.Path = rel
		default:
			continue
		}
		if seenFile[in.Path] {
			continue
		}
		seenFile[in.Path] = true
		if in.SHA256, err = HashFile(p); err != nil {
			return nil, nil, err
		}
		in.Why = "read"
		if slices.ContainsFunc(GeneratedDirs, func(d string) bool { return in.Path == d || strings.HasPrefix(in.Path, d+"/") }) {
			in.Why = "generated"
		}
		files = append(files, in)
	}
	return files, modules, nil
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

// moduleOf returns the module path@version of a path relative to the module cache, undoing the
// cache's escaping of capital letters ("!x" for "X"); false for the cache's download area.
func moduleOf(rel string) (string, bool) {
	if strings.HasPrefix(rel, "cache/") {
		return "", false
	}
	parts := strings.Split(rel, "/")
	for i, part := range parts {
		if strings.Contains(part, "@") {
			mod := strings.Join(parts[:i+1], "/")
			var b strings.Builder
			for j := 0; j < len(mod); j++ {
				if mod[j] == '!' && j+1 < len(mod) {
					j++
					b.WriteString(strings.ToUpper(mod[j : j+1]))
					continue
				}
				b.WriteByte(mod[j])
			}
			return b.String(), true
		}
	}
	return "", false
}
