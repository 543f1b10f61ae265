package bench

import (
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// cpuClock is what the kernel's per-process CPU times count in (USER_HZ,
// 100 on Linux).
const cpuClock = 100

// cpuTimes are the CPU time a pipeline's process (this one in a drain, the
// target's child in a latency window) and the server child have used; on a
// shared machine they measure a pipeline's cost where its speed depends on
// what else runs.
type cpuTimes struct {
	pipeline, server time.Duration
}

// readCPU returns the CPU time used so far by this process and by the
// process pid (0: none, or not readable, counts as 0).
func readCPU(pid int) cpuTimes {
	var c cpuTimes
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		c.pipeline = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	if pid > 0 {
		c.server = processCPU(pid)
	}
	return c
}

// processCPU reads pid's user and system time from /proc/<pid>/stat.
func processCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	// The command name, in parentheses, may hold spaces: count fields
	// after it. utime and stime are fields 14 and 15 of the line.
	_, rest, ok := strings.Cut(string(b), ") ")
	if !ok {
		return 0
	}
	f := strings.Fields(rest)
	if len(f) < 13 {
		return 0
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return time.Duration(utime+stime) * time.Second / cpuClock
}

// perEvent returns the CPU used since before, in µs per event.
func (c cpuTimes) perEvent(before cpuTimes, events int) (pipeline, server float64) {
	n := float64(max(events, 1))
	return float64((c.pipeline - before.pipeline).Microseconds()) / n, float64((c.server - before.server).Microseconds()) / n
}
