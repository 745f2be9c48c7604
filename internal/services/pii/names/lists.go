package names

import (
	"embed"
	"fmt"
	"path"
	"strings"

	"github.com/sluice-api/sluice/internal/modelfile"
)

// The word lists the tagger's features and the rules after it read are data files,
// lists/NAME.txt: words separated by spaces or line breaks, lower case, lines starting with "#"
// are comments. The model file records the SHA-256 of every list it was trained with, and
// loading it refuses a package whose lists differ (modelfile.CheckLists, see Decode): a list
// changed is a model to rebuild with go run ./scripts/models lock pii.
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

// listContents returns the embedded lists by their names as the model file records them
// (lists/NAME.txt, relative to the model file), for modelfile.ListHashes and CheckLists.
func listContents() map[string][]byte {
	names, contents := ListFiles()
	out := make(map[string][]byte, len(names))
	for i, n := range names {
		out[n] = contents[i]
	}
	return out
}

// recordLists notes the SHA-256 of every embedded list in m, for its model file: the lists a
// model is trained with are the ones compiled into the trainer.
func (m *Model) recordLists() { m.lists = modelfile.ListHashes(listContents()) }
