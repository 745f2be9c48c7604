// Command models builds and checks Sluice's model files against models.lock, the record of how
// each was trained (see docs/models.md):
//
//	go run ./scripts/models check            # every model file and word list matches the lock (fast)
//	go run ./scripts/models verify [NAME...] # train each model again and compare (make models-verify)
//	go run ./scripts/models lock NAME...     # train, install the files, record the run in the lock
//
// verify compares byte for byte on the architecture a model was locked on, and by its
// evaluation figures within the lock's tolerance elsewhere (or everywhere with -by-eval). lock
// needs strace, which records every file the trainer reads. Both read the shared data from -data.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"path/filepath"

	"github.com/sluice-api/sluice/scripts/internal/evalkit"
	"github.com/sluice-api/sluice/scripts/internal/modellock"
)

func main() {
	log.SetFlags(0)
	data := evalkit.DataFlag()
	byEval := flag.Bool("by-eval", false, "verify: compare the evaluation figures even on the architecture a model was locked on")
	keep := flag.Bool("keep", false, "keep the temporary directory (builds, training logs, rebuilt models, evaluation output)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./scripts/models [flags] check | verify [NAME...] | lock NAME...\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, *data, *byEval, *keep, flag.Args()); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, data string, byEval, keep bool, args []string) error {
	if len(args) == 0 {
		flag.Usage()
		return errors.New("no command")
	}
	root, err := findRoot()
	if err != nil {
		return err
	}
	lockPath := filepath.Join(root, modellock.FileName)
	lock, err := modellock.Read(lockPath)
	if err != nil {
		return err
	}
	env := &modellock.Env{Root: root, Data: data, Go: "go", Log: os.Stderr}
	defer func() {
		if env.Tmp == "" {
			return
		}
		if keep {
			log.Printf("kept %s", env.Tmp)
			return
		}
		os.RemoveAll(env.Tmp)
	}()
	models := lock.Models
	if len(args) > 1 {
		models = nil
		for _, name := range args[1:] {
			m, err := lock.Model(name)
			if err != nil {
				return err
			}
			models = append(models, m)
		}
	}
	switch args[0] {
	case "check":
		errs := modellock.CheckTree(root, lock)
		for _, err := range errs {
			log.Print(err)
		}
		if len(errs) > 0 {
			return fmt.Errorf("%d difference(s) from %s", len(errs), modellock.FileName)
		}
		fmt.Printf("%d models: every model file and word list matches %s\n", len(lock.Models), modellock.FileName)
	case "verify":
		failed := 0
		for _, m := range models {
			summary, err := env.Verify(ctx, m, byEval)
			if err != nil {
				log.Printf("FAIL %v", err)
				failed++
				continue
			}
			fmt.Println("ok  ", summary)
		}
		if failed > 0 {
			return fmt.Errorf("%d of %d models do not match the lock", failed, len(models))
		}
	case "lock":
		if len(args) < 2 {
			return errors.New("lock: name the models to train and lock")
		}
		for _, m := range models {
			if err := env.Lock(ctx, m); err != nil {
				return err
			}
			if err := lock.Write(lockPath); err != nil {
				return err
			}
			fmt.Printf("locked %s: %d files, %d inputs, %d figures\n", m.Name, len(m.Files), len(m.Inputs), len(m.Eval.Figures))
		}
	default:
		flag.Usage()
		return fmt.Errorf("unknown command %q", args[0])
	}
	return nil
}

// findRoot returns the repository root: the nearest directory up from here holding the lock.
func findRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, modellock.FileName)); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no %s here or above; run from the repository", modellock.FileName)
		}
		dir = parent
	}
}
