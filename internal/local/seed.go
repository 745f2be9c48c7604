package local

import (
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-api/sluice/internal/account"
)

// SeedKeysEnv names the environment variable that holds the API keys to seed, separated by
// commas or white space. Keys come from the environment, never from the command line: the
// arguments of a process are visible to every local user (ps), its environment only to its owner.
const SeedKeysEnv = "SLUICE_SEED_KEYS"

// ErrSeedKeyFlag answers the removed -seed-key flag.
var ErrSeedKeyFlag = errors.New("the -seed-key flag was removed because ps shows a process's arguments to every local user; put the key in " + SeedKeysEnv + " (make run does this with SLUICE_KEY)")

// SeedKeys parses the value of SeedKeysEnv. Every key must have the API key format; the error
// names a bad key by its position only, never by its characters.
func SeedKeys(v string) ([]string, error) {
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	var keys []string
	for i, k := range fields {
		if !account.ValidKeyFormat(k) {
			return nil, fmt.Errorf("%s: key %d of %d is not an API key (%q followed by %d letters and digits)",
				SeedKeysEnv, i+1, len(fields), account.KeyPrefix, account.KeyRandomLen)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
