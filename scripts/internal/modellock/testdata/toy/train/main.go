// Command train is a toy trainer for modellock's tests: it writes its data file and the
// repository's word list, repeated -scale times, to -out.
package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"flag"
	"log"
	"os"
	"path/filepath"
)

// prior is compiled in, as trainers embed their hand-written examples.
//
//go:embed prior.txt
var prior []byte

func main() {
	data := flag.String("data", "", "data directory")
	out := flag.String("out", "model.bin", "model file")
	scale := flag.Int("scale", 2, "repetitions")
	show := flag.Bool("show-flags", false, "print the flags")
	flag.Parse()
	if *show {
		vals := map[string]string{}
		flag.VisitAll(func(f *flag.Flag) {
			if f.Name != "show-flags" {
				vals[f.Name] = f.Value.String()
			}
		})
		b, _ := json.Marshal(vals)
		os.Stdout.Write(append(b, '\n'))
		return
	}
	in, err := os.ReadFile(filepath.Join(*data, "in.txt"))
	if err != nil {
		log.Fatal(err)
	}
	words, err := os.ReadFile("words.txt")
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, bytes.Repeat(append(append(in, words...), prior...), *scale), 0o644); err != nil {
		log.Fatal(err)
	}
}
