package bench

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestMain lets the test binary serve as the benchmark's server child, as
// the guard-bench binary does.
func TestMain(m *testing.M) {
	if len(os.Args) >= 3 && os.Args[1] == ServeFlag {
		if err := Serve(os.Args[2], false); err != nil {
			os.Exit(1)
		}
		return
	}
	os.Exit(m.Run())
}

// TestRun runs a small benchmark end to end: every phase must produce
// numbers, every call a verdict.
func TestRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a small benchmark with a server child process")
	}
	cfg := DefaultConfig()
	cfg.Partitions, cfg.Events, cfg.Runs, cfg.Rounds = 2, 2000, 20, 2
	cfg.Rates, cfg.RateDuration, cfg.MemRuns, cfg.Timeout = []int{300}, time.Second, 500, time.Minute
	rep, err := Run(context.Background(), cfg, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Rounds) != 2 {
		t.Fatalf("%d throughput rounds, want 2", len(rep.Rounds))
	}
	for _, rd := range rep.Rounds {
		if rd.Baseline.Events != 2000 || rd.Guard.Events != 2000 || rd.Baseline.PerSecond <= 0 || rd.Guard.PerSecond <= 0 ||
			rd.Baseline.Stored < 1 || rd.Guard.Stored <= 0 {
			t.Errorf("round %+v", rd)
		}
	}
	if rep.Ratio != rep.Guard.PerSecond/rep.Baseline.PerSecond {
		t.Errorf("ratio %v of %+v and %+v", rep.Ratio, rep.Guard, rep.Baseline)
	}
	if len(rep.Latency) != 2 || len(rep.BaseLatency) != 2 {
		t.Fatalf("%d latency rows, want the offered load and saturation", len(rep.Latency))
	}
	for i, l := range rep.Latency {
		if l.Samples == 0 || l.Missing != 0 || l.P50 <= 0 || rep.BaseLatency[i].Missing != 0 {
			t.Errorf("latency row %d: guard %+v, baseline %+v", i, l, rep.BaseLatency[i])
		}
	}
	if rep.Memory.Runs != 500 || rep.Memory.StateBytesPerRun <= 0 {
		t.Errorf("memory %+v", rep.Memory)
	}
	var b strings.Builder
	rep.Print(&b)
	for _, want := range []string{"ratio guard/baseline, median of 2 rounds", "saturation", "heap bytes per run"} {
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
