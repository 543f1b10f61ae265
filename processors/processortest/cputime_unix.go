//go:build unix

package processortest

import (
	"syscall"
	"time"
)

func init() {
	cpuTime = func() time.Duration {
		var ru syscall.Rusage
		if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
			return 0
		}
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
}
