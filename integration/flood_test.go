package integration

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestFloodDoesNotDelayOtherRuns: 50 runs make calls, each waiting for its
// verdict and thinking 150 ms before the next, first alone, then while one
// more run is flooded with malformed events by a connection of its own
// publishing as fast as JetStream takes them, as an agent publishes, for
// 20 s. None of the 50 runs is stopped or misses a verdict, and
// guard-consumer's memory growth and log volume stay small: the flood's
// events are refused by admission, unread, a dead letter per batch
// standing for them. The stream stores the flood's events and the others'
// in one queue, so the others' events wait behind the flood before
// guard-consumer can see them: their p99 verdict latency stays within 2×
// of theirs without the flood, on top of the time the stream took to
// store an event (measured by a probe), for runs in the flooded
// partition too. The test prints both.
func TestFloodDoesNotDelayOtherRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("floods guard-consumer for 20 s")
	}
	skipUnderRace(t)
	const runs, partitions = 50, 4
	s := newSystem(t, partitions)
	g := s.startProcessWith("-log-level", "info")
	ctx := context.Background()
	c := s.client("acme", client.WithVerdictTimeout(10*time.Second))
	calm := make([]*client.Run, runs)
	for i := range calm {
		r, err := c.Start(ctx, fmt.Sprintf("calm-%d", i), client.RunSpec{})
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		calm[i] = r
	}

	var stopped atomic.Int32
	// The probe publishes a step of a run of its own every 20 ms and times
	// the server's acknowledgement: how long AGENT_EVENTS takes to store an
	// event, the floor under any verdict. A stream stores what it is sent
	// in order, from every publisher alike.
	probe := processortest.NewHistory("acme", "probe")
	for range 2000 {
		probe.Step()
	}
	probeNext := 0
	// measure has every calm run call until d is over, and returns the
	// verdict latencies and the probe's.
	measure := func(d time.Duration) (calls, ingest []time.Duration, byRun [][]time.Duration) {
		var mu sync.Mutex
		var lat []time.Duration
		byRun = make([][]time.Duration, len(calm))
		var wg sync.WaitGroup
		end := time.Now().Add(d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ; time.Now().Before(end) && probeNext < len(probe.Events()); probeNext++ {
				ev := probe.Events()[probeNext]
				subj, _ := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
				start := time.Now()
				if _, err := s.js.Publish(ctx, subj, event.AppendEvent(nil, &ev)); err != nil {
					t.Errorf("probe: %v", err)
					return
				}
				ingest = append(ingest, time.Since(start))
				time.Sleep(20 * time.Millisecond)
			}
		}()
		for i, r := range calm {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := 0; time.Now().Before(end); k++ {
					if err := r.Step(ctx, client.Step{Number: int64(k), Turn: 1}); err != nil {
						t.Errorf("run %d: step: %v", i, err)
						return
					}
					start := time.Now()
					v, err := r.Call(ctx, client.Call{Tool: "grep", Args: fmt.Sprintf(`{"pattern":"func F%d_%d","path":"src"}`, i, k)})
					took := time.Since(start)
					if err != nil || v.Kind != event.Allow {
						if v.Kind == event.Stop {
							stopped.Add(1)
						}
						t.Errorf("run %d, call %d: %v %s %s, %v", i, k, v.Kind, v.Reason, v.Msg, err)
						return
					}
					mu.Lock()
					lat = append(lat, took)
					byRun[i] = append(byRun[i], took)
					mu.Unlock()
					if err := r.Result(ctx, client.Result{Call: v.Call, Out: "ok"}); err != nil {
						t.Errorf("run %d: result: %v", i, err)
						return
					}
					time.Sleep(150 * time.Millisecond) // an agent thinks between calls
				}
			}()
		}
		wg.Wait()
		slices.Sort(lat)
		slices.Sort(ingest)
		return lat, ingest, byRun
	}

	cpuA, selfA := cpuOf(t, g.cmd.Process.Pid), cpuOf(t, os.Getpid())
	base, baseIngest, _ := measure(8 * time.Second)
	mem0, logs0 := rss(t, g), logBytes(g)
	cpuB, selfB := cpuOf(t, g.cmd.Process.Pid), cpuOf(t, os.Getpid())

	flooder, err := nats.Connect(s.server.ClientURL(), nats.Name("flooder"))
	if err != nil {
		t.Fatal(err)
	}
	defer flooder.Close()
	fjs, err := jetstream.New(flooder)
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := streams.EventSubject("acme", "flood", event.KindCall)
	var sent atomic.Int64
	done := make(chan struct{})
	floodEnd := make(chan struct{})
	go func() {
		defer close(floodEnd)
		payload := []byte("\xc1 this is not an event")
		for {
			select {
			case <-done:
				return
			default:
			}
			_, err := fjs.PublishAsync(subject, payload)
			switch {
			case errors.Is(err, jetstream.ErrTooManyStalledMsgs):
				<-fjs.PublishAsyncComplete()
			case err != nil:
				return
			default:
				sent.Add(1)
			}
		}
	}()
	began := time.Now()
	during, duringIngest, duringByRun := measure(20 * time.Second)
	close(done)
	<-floodEnd
	floodFor := time.Since(began)
	mem1, logs1 := rss(t, g), logBytes(g)
	cpuC, selfC := cpuOf(t, g.cmd.Process.Pid), cpuOf(t, os.Getpid())
	t.Logf("CPU: guard-consumer %v then %v; the test's process (server, agents, flooder) %v then %v",
		cpuB-cpuA, cpuC-cpuB, selfB-selfA, selfC-selfB)

	p99 := func(l []time.Duration) time.Duration { return l[len(l)*99/100] }
	p50 := func(l []time.Duration) time.Duration { return l[len(l)/2] }
	if len(base) == 0 || len(during) == 0 {
		t.Fatal("no calls measured")
	}
	sharing := sharingPartition(t, s, "flood", runs)
	var near, far []time.Duration
	for i, l := range duringByRun {
		if sharing[i] {
			near = append(near, l...)
		} else {
			far = append(far, l...)
		}
	}
	slices.Sort(near)
	slices.Sort(far)
	t.Logf("flood: %d malformed events in %v (%.0f/s) on one connection; %d calm runs share its partition",
		sent.Load(), floodFor.Round(time.Millisecond), float64(sent.Load())/floodFor.Seconds(), countTrue(sharing))
	if len(near) > 0 && len(far) > 0 {
		t.Logf("under the flood, calm runs in its partition: p50 %v, p99 %v; in the others: p50 %v, p99 %v",
			p50(near).Round(time.Microsecond), p99(near).Round(time.Microsecond), p50(far).Round(time.Microsecond), p99(far).Round(time.Microsecond))
	}
	t.Logf("calm runs without the flood: %d calls, p50 %v, p99 %v; with it: %d calls, p50 %v, p99 %v (%.2f×)",
		len(base), p50(base).Round(time.Microsecond), p99(base).Round(time.Microsecond),
		len(during), p50(during).Round(time.Microsecond), p99(during).Round(time.Microsecond),
		float64(p99(during))/float64(p99(base)))
	t.Logf("guard-consumer: resident memory %d MiB before the flood, %d MiB after; %d bytes of log during it",
		mem0>>20, mem1>>20, logs1-logs0)
	t.Logf("AGENT_EVENTS stores an event in p50 %v, p99 %v without the flood; p50 %v, p99 %v with it",
		p50(baseIngest).Round(time.Microsecond), p99(baseIngest).Round(time.Microsecond),
		p50(duringIngest).Round(time.Microsecond), p99(duringIngest).Round(time.Microsecond))
	// A stream stores what every publisher sends in one queue, in order:
	// under the flood the calm runs' events wait behind it before
	// guard-consumer can see them, however little it does with the flood
	// (its CPU above). What guard-consumer controls is the rest of the
	// verdict: it must stay within twice the no-flood verdict, on top of
	// what storing an event took.
	if limit := 2 * (p99(base) + p99(duringIngest)); p99(during) > limit {
		t.Errorf("the calm runs' p99 went from %v to %v under the flood, while the stream took %v to store an event; want at most %v",
			p99(base), p99(during), p99(duringIngest), limit)
	}
	if n := stopped.Load(); n > 0 {
		t.Errorf("%d calm runs were stopped", n)
	}
	if grew := mem1 - mem0; mem1 > mem0 && grew > 128<<20 {
		t.Errorf("guard-consumer grew by %d MiB under the flood; want under 128", grew>>20)
	}
	if n := logs1 - logs0; n > 64<<10 {
		t.Errorf("guard-consumer logged %d bytes during the flood; want under 64 KiB:\n%s", n, g.tail(20))
	}
}

// rss returns the resident memory of p, in bytes.
func rss(t *testing.T, p *process) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Skipf("cannot read the process's memory: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	t.Skip("the process's status has no VmRSS")
	return 0
}

// logBytes returns how much p has logged so far.
func logBytes(p *process) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, l := range p.log {
		n += len(l) + 1
	}
	return n
}

// sharingPartition reports which of the runs calm-0 … calm-<n-1> of
// tenant acme are in the partition of run.
func sharingPartition(t *testing.T, s *system, run string, n int) []bool {
	t.Helper()
	partition := func(r string) string {
		m, err := s.js.Stream(context.Background(), streams.EventStream)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := m.GetLastMsgForSubject(context.Background(), "agent.*.acme."+r+".>")
		if err != nil {
			t.Fatalf("run %s: %v", r, err)
		}
		p, _, _ := strings.Cut(strings.TrimPrefix(msg.Subject, "agent."), ".")
		return p
	}
	flooded := partition(run)
	shared := make([]bool, n)
	for i := range n {
		shared[i] = partition(fmt.Sprintf("calm-%d", i)) == flooded
	}
	return shared
}

// cpuOf returns the CPU time process pid has used.
func cpuOf(t *testing.T, pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		t.Skipf("cannot read the process's CPU time: %v", err)
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	utime, _ := strconv.ParseInt(f[11], 10, 64)
	stime, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // clock ticks of 10 ms
}

func countTrue(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
