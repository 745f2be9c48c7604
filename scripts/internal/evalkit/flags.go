package evalkit

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
)

// ShowFlags is the flag every trainer understands through ParseFlags: print every flag of the
// command with the value it would run with, as a JSON object, and exit. scripts/models records a
// trainer's full command with it, so the lock names every setting, defaults included.
const ShowFlags = "show-flags"

// ParseFlags parses the command line like flag.Parse, with -show-flags added. Trainers call it
// instead of flag.Parse.
func ParseFlags() {
	show := flag.Bool(ShowFlags, false, "print every flag with its value as JSON and exit (scripts/models records the command with it)")
	flag.Parse()
	if *show {
		if err := WriteFlags(os.Stdout, flag.CommandLine); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// WriteFlags writes every flag of fs but -show-flags, with its current value, as one JSON
// object (encoding/json writes a map's keys in order).
func WriteFlags(w io.Writer, fs *flag.FlagSet) error {
	values := map[string]string{}
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name != ShowFlags {
			values[f.Name] = f.Value.String()
		}
	})
	b, err := json.Marshal(values)
	if err != nil {
		return fmt.Errorf("flags: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
