package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the benchmark's child
// processes, as the guard-bench binary does.
func TestMain(m *testing.M) {
	if child, err := RunChild(os.Args[1:]); child {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestRun runs a small benchmark end to end: every phase must produce
// numbers, every call a verdict, every event an answer, and no partition
// may fail.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small benchmark with a server child process")
	}
	cfg := DefaultConfig()
	cfg.Partitions, cfg.Events, cfg.Runs, cfg.Rounds = 2, 2000, 20, 2
	cfg.Rates, cfg.Window, cfg.Pairs, cfg.Timeout = []int{300}, 300*time.Millisecond, 2, time.Minute
	cfg.Scale = []int{50, 400}
	cfg.ServerProfile = filepath.Join(t.TempDir(), "server")
	cfg.Policy = "openhands" // loaded by the guard in this process and in its child
	rep, err := Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 2 {
		t.Fatalf("%d throughput rounds, want 2", len(rep.Rounds))
	}
	for _, rd := range rep.Rounds {
		for _, tp := range []Throughput{rd.Old, rd.Baseline, rd.Guard} {
			if tp.Events != 2000 || tp.PerSecond <= 0 || tp.Stored <= 0 {
				t.Errorf("round %+v", rd)
			}
		}
		if rd.Old.Stored < 1 || rd.Baseline.Stored < 1 {
			t.Errorf("round %+v: a baseline stored less than an answer per event", rd)
		}
	}
	if rep.Ratio != rep.Guard.PerSecond/rep.Baseline.PerSecond || rep.Gain <= 0 {
		t.Errorf("ratio %v of %+v and %+v, gain %v", rep.Ratio, rep.Guard, rep.Baseline, rep.Gain)
	}

	if len(rep.Latency) != 2 || !rep.Latency[1].Saturation {
		t.Fatalf("%d latency loads, want the offered load and saturation", len(rep.Latency))
	}
	// A window's CPU is counted in the kernel's ticks (10 ms), which a
	// small window may not reach: the phase's, summed, does.
	var guardCPU, serverCPU float64
	for _, l := range rep.Latency {
		for _, w := range l.Guard {
			guardCPU, serverCPU = guardCPU+w.CPU, serverCPU+w.ServerCPU
		}
		if len(l.Guard) != 2 || l.GuardPooled.Missing != 0 || l.GuardPooled.P50 <= 0 {
			t.Errorf("at %d/s the guard's windows are %+v", l.Offered, l.Guard)
		}
		if len(l.Against) != 4 {
			t.Errorf("at %d/s the guard is compared with %d, want the 2 floors and the baseline", l.Offered, len(l.Against))
		}
		for _, c := range l.Against {
			if len(c.Windows) != 2 || len(c.Ratios) != 2 || c.Pooled.Missing != 0 || c.Pooled.Samples == 0 ||
				c.Min > c.Median || c.Median > c.Max || c.PooledRatio <= 0 {
				t.Errorf("at %d/s against %s: %+v", l.Offered, c.Name, c)
			}
		}
		if g := l.Guarantees; len(g.Ratios) != 2 || g.Min > g.Median || g.Median > g.Max || g.PooledRatio <= 0 {
			t.Errorf("at %d/s the baseline over the loop: %+v", l.Offered, g)
		}
	}

	if guardCPU <= 0 || serverCPU <= 0 {
		t.Errorf("the guard's windows used %.1f µs of CPU per event, and the server %.1f: want both measured", guardCPU, serverCPU)
	}

	if len(rep.Scale) != 3 || rep.Scale[0].Runs != 50 || rep.Scale[1].Runs != 400 || rep.Scale[2].Runs != 50 {
		t.Fatalf("scales %+v, want 50, 400 and 50 again", rep.Scale)
	}
	for _, s := range rep.Scale {
		if s.Err != "" || s.Tp.Events < cfg.Events || s.Tp.Events%(3*s.Runs) != 0 || s.Ratio <= 0 || s.StateBytesPerRun <= 0 {
			t.Errorf("scale %+v", s)
		}
	}

	for _, p := range phases {
		if f, ok := rep.Failures[p]; !ok || f.Partitions != 0 {
			t.Errorf("%s: %+v partition failures", p, f)
		}
	}
	var drains []string
	for r := range 2 {
		for _, p := range []string{"old", "base", "guard"} {
			drains = append(drains, fmt.Sprintf("throughput-%d-%s", r+1, p))
		}
	}
	drains = append(drains, "scale-s0-50", "scale-s1-400", "scale-s2-50")
	for _, d := range drains {
		// A CPU profile is gzipped protocol buffers.
		if b, err := os.ReadFile(cfg.ServerProfile + "-" + d + ".pprof"); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("the server's profile of the %s drain: %d bytes, %v", d, len(b), err)
		}
	}

	var b strings.Builder
	rep.Print(&b)
	for _, want := range []string{"guard/baseline, median of 2 rounds", "baseline/old baseline", "(saturation)",
		"core request/reply", "JetStream loop, 1 partition", "JetStream loop, 2 partitions", "heap B/run", "partition failures: throughput 0",
		"policy openhands"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestMixIsDeterministic(t *testing.T) {
	m := Mix{Tenant: "t", Runs: 7, Events: 500, Payload: 256}
	a, b := m.Messages(), m.Messages()
	if len(a) != 500 || len(a) != len(b) {
		t.Fatalf("%d and %d messages, want 500", len(a), len(b))
	}
	for i := range a {
		if a[i].Subject != b[i].Subject || string(a[i].Data) != string(b[i].Data) {
			t.Fatalf("message %d differs between two calls", i)
		}
	}
}
