//go:build !unix

package dynalite

import (
	"context"
	"errors"
	"os"
	"syscall"
)

var errUnsupported = errors.New("dynalite: starting the test server is supported on unix systems only")

func newProcessGroup() *syscall.SysProcAttr { return nil }

func signalGroup(p *os.Process, _ bool) error {
	if err := p.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return nil
}

func lockInstall(context.Context, string) (func(), error) { return nil, errUnsupported }
