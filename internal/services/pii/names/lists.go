package names

import (
	"embed"
	"fmt"
	"path"
	"slices"
	"strings"
)

// The word lists the tagger's features and the rules after it read are data files,
// lists/NAME.txt: words separated by spaces or line breaks, lower case, lines starting with "#"
// are comments. The model file records the SHA-256 of every list it was trained with, and
// loading it refuses a package whose lists differ (see Load): a list changed is a model to
// rebuild with go run ./scripts/train/pii.
//
//go:embed lists/*.txt
var listFS embed.FS

// ListFiles returns the name (lists/NAME.txt) and content of every embedded list, in name order.
func ListFiles() (names []string, contents [][]byte) {
	entries, err := listFS.ReadDir("lists")
	if err != nil {
		panic(err) // the directory is embedded: it exists
	}
	for _, e := range entries {
		b, err := listFS.ReadFile(path.Join("lists", e.Name()))
		if err != nil {
			panic(err)
		}
		names = append(names, path.Join("lists", e.Name()))
		contents = append(contents, b)
	}
	return names, contents
}

// listWords returns the words of lists/name.txt. It panics when the list does not exist: the
// names are constants of this package, and a missing list is a build mistake that every test
// finds.
func listWords(name string) []string {
	b, err := listFS.ReadFile("lists/" + name + ".txt")
	if err != nil {
		panic(fmt.Sprintf("names: list %s: %v", name, err))
	}
	var out []string
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		out = append(out, strings.Fields(line)...)
	}
	return out
}

// listSet returns the hashes of the words of lists/name.txt (see hashSet).
func listSet(name string) map[uint64]bool {
	m := map[uint64]bool{}
	for _, w := range listWords(name) {
		m[fnv(w)] = true
	}
	return m
}

// recordLists notes the SHA-256 of every embedded list in m (see Model.Record).
func (m *Model) recordLists() {
	names, contents := ListFiles()
	for i, n := range names {
		m.Record(n, contents[i])
	}
}

// checkLists returns an error when m was trained with lists other than the embedded ones: a
// list it records that differs or is missing, or an embedded list it does not record. A model
// file that records no list at all (the earlier forms) is not checked.
func (m *Model) checkLists() error {
	var recorded []string
	for k := range m.meta {
		if n, ok := strings.CutPrefix(k, hashKey("lists/")); ok {
			recorded = append(recorded, "lists/"+n)
		}
	}
	if len(recorded) == 0 {
		return nil
	}
	names, contents := ListFiles()
	for i, n := range names {
		if _, ok := m.meta[hashKey(n)]; !ok {
			return fmt.Errorf("names model: trained without %s; rebuild it with go run ./scripts/train/pii", n)
		}
		if err := m.check(n, contents[i]); err != nil {
			return fmt.Errorf("%w; rebuild it with go run ./scripts/train/pii", err)
		}
	}
	for _, n := range recorded {
		if !slices.Contains(names, n) {
			return fmt.Errorf("names model: trained with %s, which the package no longer has", n)
		}
	}
	return nil
}
