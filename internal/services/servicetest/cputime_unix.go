//go:build unix

package servicetest

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user and system) the whole process has used so far. Comparing it
// around a run measures the work done, not how busy the machine is with other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
