package runner_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// serveEnv makes the test binary a server child (see serverProcess).
const serveEnv = "RUNNER_TEST_SERVE"

func TestMain(m *testing.M) {
	if dir := os.Getenv(serveEnv); dir != "" {
		if err := bench.Serve(dir, false); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// serverProcess starts a JetStream server in a child process, so that what
// this process allocates is the runner's alone, and returns its URL.
func serverProcess(b testing.TB) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveEnv+"="+b.TempDir())
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := bufio.NewScanner(out)
	for lines.Scan() {
		if url, ok := strings.CutPrefix(lines.Text(), "ready "); ok {
			return url
		}
	}
	b.Fatalf("the server child exited before it was ready: %v", cmd.Wait())
	return ""
}

// BenchmarkEventPath drains a fleet's events (guard-bench's mix: calls,
// results, steps, heartbeats, loops and stops over 500 runs, every guard
// of the default policy) through a runner whose server runs in another
// process, and reports what the runner's process spends per event: heap
// allocations and CPU time.
func BenchmarkEventPath(b *testing.B) {
	const partitions, perRound = 4, 20_000
	url := serverProcess(b)
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(4096))
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	sc := streams.DefaultConfig()
	sc.Partitions = partitions
	if err := streams.Provision(ctx, js, sc); err != nil {
		b.Fatal(err)
	}
	rnc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer rnc.Close()
	rctx, cancel := context.WithCancel(ctx)
	r, err := runner.New(rctx, rnc, guard.Chain(guard.DefaultPolicy()), runner.DefaultConfig(partitions))
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(rctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()

	var events, mallocs uint64
	var spent time.Duration
	b.ResetTimer()
	for i := range b.N {
		b.StopTimer()
		mix := bench.Mix{Tenant: "bench", Runs: 500, Events: perRound, Payload: 256, Prefix: fmt.Sprintf("b%d-", i)}
		for _, m := range mix.Messages() {
			_, err := js.PublishAsync(m.Subject, m.Data)
			for errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
				<-js.PublishAsyncComplete()
				_, err = js.PublishAsync(m.Subject, m.Data)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		<-js.PublishAsyncComplete()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		cpu := processCPU()
		b.StartTimer()
		waitDrained(b, js, partitions)
		b.StopTimer()
		spent += processCPU() - cpu
		runtime.ReadMemStats(&after)
		events += perRound
		mallocs += after.Mallocs - before.Mallocs
	}
	b.ReportMetric(float64(mallocs)/float64(events), "allocs/event")
	b.ReportMetric(float64(spent.Nanoseconds())/float64(events), "cpu-ns/event")
}

// waitDrained waits until the partitions' consumers have acked everything.
func waitDrained(b *testing.B, js jetstream.JetStream, partitions int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		left := 0
		for p := range partitions {
			c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
			if err != nil {
				b.Fatal(err)
			}
			info := c.CachedInfo()
			left += int(info.NumPending) + info.NumAckPending
		}
		if left == 0 {
			return
		}
		if ctx.Err() != nil {
			b.Fatalf("%d events left undrained", left)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// processCPU returns the CPU time this process has used, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
