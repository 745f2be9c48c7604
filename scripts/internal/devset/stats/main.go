// Command stats prints the counts table of the social-media development set (the table in
// scripts/internal/devset/social-media/README.md). With -verify it first re-reads every
// labelled line from the data directory and checks its SHA-256 and name spans.
//
//	go run ./scripts/internal/devset/stats [-verify] [-data DIR]
package main

import (
	"flag"
	"log"
	"os"

	"github.com/sluice-api/sluice/scripts/internal/devset"
	"github.com/sluice-api/sluice/scripts/internal/evalkit"
)

func main() {
	data := evalkit.DataFlag()
	verify := flag.Bool("verify", false, "re-read the labelled lines from -data and check their hashes and spans")
	flag.Parse()
	if err := run(*data, *verify); err != nil {
		log.Fatal(err)
	}
}

func run(data string, verify bool) error {
	labels, err := devset.Labels()
	if err != nil {
		return err
	}
	if verify {
		if _, err := devset.Attach(data, labels); err != nil {
			return err
		}
	}
	return devset.WriteCounts(os.Stdout, labels)
}
