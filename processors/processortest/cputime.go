package processortest

import (
	"testing"
	"time"
)

// ReportCPU starts counting the process's CPU time and returns a function
// that, called after b's loop, reports it per operation as "cpu-ns/op".
// On a machine shared with other work, the wall-clock ns/op grows with
// everything else that runs; CPU time grows far less, so comparisons made
// with it survive a busy machine. It counts the whole process, garbage
// collection included, and reports nothing where the platform cannot
// tell.
func ReportCPU(b *testing.B) func() {
	b.Helper()
	start := cpuTime()
	return func() {
		if start == 0 || b.N == 0 {
			return
		}
		b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
	}
}

// cpuTime returns the process's user and system time so far.
var cpuTime = func() time.Duration { return 0 }
