package client

import (
	"fmt"
	"strings"
)

// secretKey holds the API key. A Client keeps a *secretKey because fmt never follows a pointer
// to a string, even where it cannot call the Client's Format (a Client in an unexported field).
type secretKey string

func newSecretKey(k string) *secretKey {
	s := secretKey(k)
	return &s
}

// keyPrefix starts every Sluice API key.
const keyPrefix = "sluice_live_"

// hint names the key without giving it away: the prefix and the last four characters of a
// well-formed key (enough to tell your keys apart, as the dashboard does), else "[redacted]".
func (k *secretKey) hint() string {
	if k == nil || *k == "" {
		return "(none)"
	}
	if v := string(*k); strings.HasPrefix(v, keyPrefix) && len(v) >= len(keyPrefix)+16 {
		return keyPrefix + "…" + v[len(v)-4:]
	}
	return "[redacted]"
}

// String implements fmt.Stringer: the base URL and a hint of the key, never the key itself.
func (c Client) String() string {
	return "sluice.Client{" + c.base + ", key " + c.key.hint() + "}"
}

// GoString implements fmt.GoStringer (the %#v verb) with the key redacted.
func (c Client) GoString() string {
	return fmt.Sprintf("&client.Client{base: %q, key: %q}", c.base, c.key.hint())
}

// Format implements fmt.Formatter, so that no verb (%v, %+v, %#v, %s, %q, %x, …) prints the
// API key, whether the Client is printed by value or through its pointer: %#v formats
// GoString, every other verb formats String.
func (c Client) Format(f fmt.State, verb rune) { formatRedacted(f, verb, c.String(), c.GoString()) }

// formatRedacted writes s (gs for %#v) as fmt would write a string under verb and f's flags.
func formatRedacted(f fmt.State, verb rune, s, gs string) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprint(f, gs)
		return
	}
	switch verb {
	case 'v', 's', 'q', 'x', 'X':
		fmt.Fprintf(f, fmt.FormatString(f, verb), s)
	default:
		// Verbs that mean nothing for a string (%d, %t, …) print the hint too, marked as fmt
		// marks a bad verb.
		fmt.Fprintf(f, "%%!%c(%s)", verb, s)
	}
}
