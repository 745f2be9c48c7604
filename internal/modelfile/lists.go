package modelfile

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Word lists that a model reads at serve time are data files embedded beside it; the model
// records the SHA-256 of each list it was trained with, and loading refuses any other, so a list
// edited without retraining the model is caught at once rather than scoring with a vocabulary
// the weights never saw.
//
// The hashes go into the metadata under the key "lists", a JSON object from the list's file name
// (relative to the model file's directory) to its hex SHA-256; scripts/models reads them there
// to lock the lists with the model.

// ListsKey is the metadata key of the word lists' hashes.
const ListsKey = "lists"

// Lists returns the word lists a model file records under ListsKey (nil when it records none).
func (f *File) Lists() (map[string]string, error) {
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(f.Meta, &meta); err != nil {
		return nil, fmt.Errorf("modelfile: metadata of %s: %w", f.ID, err)
	}
	raw, ok := meta[ListsKey]
	if !ok {
		return nil, nil
	}
	var lists map[string]string
	if err := json.Unmarshal(raw, &lists); err != nil {
		return nil, fmt.Errorf("modelfile: %q of %s: %w", ListsKey, f.ID, err)
	}
	return lists, nil
}

// ListHashes returns the hex SHA-256 of each list, for a trainer to record in the metadata.
func ListHashes(lists map[string][]byte) map[string]string {
	out := make(map[string]string, len(lists))
	for name, b := range lists {
		sum := sha256.Sum256(b)
		out[name] = hex.EncodeToString(sum[:])
	}
	return out
}

// CheckLists compares the lists a service embeds with the hashes its model recorded: every
// recorded list must be there with its hash, and no list may be there unrecorded.
func CheckLists(recorded map[string]string, lists map[string][]byte) error {
	got := ListHashes(lists)
	var bad []string
	for _, name := range slices.Sorted(maps.Keys(recorded)) {
		switch h, ok := got[name]; {
		case !ok:
			bad = append(bad, name+" is missing")
		case h != recorded[name]:
			bad = append(bad, fmt.Sprintf("%s has SHA-256 %.12s…, the model was trained with %.12s…", name, h, recorded[name]))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(got)) {
		if _, ok := recorded[name]; !ok {
			bad = append(bad, name+" is not one the model was trained with")
		}
	}
	if len(bad) > 0 {
		return fmt.Errorf("modelfile: word lists do not match the model: %s", strings.Join(bad, "; "))
	}
	return nil
}
