//go:build !unix

package servicetest

import "time"

var start = time.Now()

// cpuTime falls back to wall-clock time where rusage is not available.
func cpuTime() time.Duration { return time.Since(start) }
