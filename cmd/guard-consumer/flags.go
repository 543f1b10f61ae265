package main

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
)

// limitFlags registers the flags of the streams' size limits
// (docs/decisions/0023-stream-limits.md). The largest event is
// -max-event-bytes, which the runner shares.
func limitFlags(fs *flag.FlagSet, sc *streams.Config, oc *objectstore.Config) {
	fs.Var(byteSize{&sc.EventMaxBytes}, "event-max-bytes", "cap of AGENT_EVENTS, a `size` such as 1GiB or 512MiB; past it the oldest events go")
	fs.Int64Var(&sc.MaxMsgsPerSubject, "max-msgs-per-subject", sc.MaxMsgsPerSubject, "most events of one kind a run keeps in AGENT_EVENTS, and fired timers and decisions of one kind;\npast it the run's own oldest go")
	fs.Var(byteSize{&sc.ControlMaxBytes}, "control-max-bytes", "`size` cap of GUARD_CONTROL; past it the oldest decisions go")
	fs.Var(byteSize{&sc.DeadLetterMaxBytes}, "dead-letter-max-bytes", "`size` cap of GUARD_DLQ; past it the oldest dead letters go")
	fs.Var(byteSize{&sc.TimerMaxBytes}, "timer-max-bytes", "`size` cap of GUARD_TIMERS; past it the oldest timers go")
	fs.Var(byteSize{&sc.RunsMaxBytes}, "runs-max-bytes", "`size` cap of the guard_runs bucket; when it is full, run state cannot be written")
	fs.DurationVar(&sc.RunsMaxAge, "runs-max-age", sc.RunsMaxAge, "how long a run's state is kept after it was last written; a run idle longer is forgotten")
	fs.Var(byteSize{&oc.MaxBytes}, "output-max-bytes", "`size` cap of GUARD_OUTPUTS; past it the oldest outputs go")
}

// byteSize is a flag holding a size in bytes: a whole number, with an
// optional unit KiB, MiB, GiB or TiB (K, M, G, T: powers of 1024 too).
type byteSize struct{ n *int64 }

var units = []struct {
	name  string
	short string
	shift uint
}{{"TiB", "T", 40}, {"GiB", "G", 30}, {"MiB", "M", 20}, {"KiB", "K", 10}}

func (b byteSize) String() string {
	if b.n == nil {
		return ""
	}
	return formatBytes(*b.n)
}

func (b byteSize) Set(s string) error {
	n, err := parseBytes(s)
	if err != nil {
		return err
	}
	*b.n = n
	return nil
}

// parseBytes reads a size such as 1GiB, 512M or 1048576.
func parseBytes(s string) (int64, error) {
	num, shift := strings.TrimSpace(s), uint(0)
	for _, u := range units {
		if rest, ok := strings.CutSuffix(num, u.name); ok {
			num, shift = rest, u.shift
			break
		}
		if rest, ok := strings.CutSuffix(num, u.short); ok {
			num, shift = rest, u.shift
			break
		}
	}
	num = strings.TrimSuffix(strings.TrimSpace(num), "B")
	n, err := strconv.ParseInt(num, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%q is not a size: want bytes, or a whole number of KiB, MiB, GiB or TiB (512MiB)", s)
	}
	if n > math.MaxInt64>>shift {
		return 0, errors.New("size too large")
	}
	return n << shift, nil
}

// formatBytes writes n in the largest unit that divides it.
func formatBytes(n int64) string {
	for _, u := range units {
		if n != 0 && n%(1<<u.shift) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.name
		}
	}
	return strconv.FormatInt(n, 10)
}

// admissionFlags registers the flags of the admission limits: what a run
// and a tenant may send before the guards see it.
func admissionFlags(fs *flag.FlagSet, a *runner.Admission) {
	fs.Var(rateFlag{&a.Run}, "run-limit", "what one run may send, as `events=N,burst=N,bytes=SIZE,burst-bytes=SIZE` (per second and at once;\n0: no limit); events over it are dropped as dead letters of reason rate_limited")
	fs.Var(rateFlag{&a.Tenant}, "tenant-limit", "what one tenant's runs may send together, as `events=N,...` in -run-limit; each partition enforces its share")
	fs.Var(rateFlag{&a.NewRuns}, "tenant-new-runs", "the runs one tenant may start, as `events=N,burst=N` (runs per second and at once; 0: no limit);\neach partition enforces its share; a new run's events over it are dropped as dead letters of reason rate_limited")
	fs.Int64Var(&a.StopAfter, "run-limit-stop-after", a.StopAfter, "stop a run (LIMIT_EXCEEDED) once this many of its events were over -run-limit; 0: never")
}

// rateFlag is a flag holding a runner.Rate as key=value pairs.
type rateFlag struct{ r *runner.Rate }

func (f rateFlag) String() string {
	if f.r == nil {
		return ""
	}
	return fmt.Sprintf("events=%d,burst=%d,bytes=%s,burst-bytes=%s", f.r.Events, f.r.Burst, formatBytes(f.r.Bytes), formatBytes(f.r.BurstBytes))
}

func (f rateFlag) Set(s string) error {
	for _, kv := range strings.Split(s, ",") {
		key, value, ok := strings.Cut(strings.TrimSpace(kv), "=")
		var err error
		switch key {
		case "events":
			f.r.Events, err = count(value)
		case "burst":
			f.r.Burst, err = count(value)
		case "bytes":
			f.r.Bytes, err = parseBytes(value)
		case "burst-bytes":
			f.r.BurstBytes, err = parseBytes(value)
		default:
			ok = false
		}
		if !ok {
			return fmt.Errorf("%q: want key=value pairs with keys events, burst, bytes and burst-bytes, such as events=200,burst=2000", kv)
		}
		if err != nil {
			return fmt.Errorf("%s=%s: %w", key, value, err)
		}
	}
	return nil
}

// count reads a whole number of events.
func count(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return 0, errors.New("want a whole number of events, 0 for no limit")
	}
	return n, nil
}
