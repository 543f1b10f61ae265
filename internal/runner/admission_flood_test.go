package runner_test

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
)

// TestFloodedRunIsRateLimited: a run publishes 2,000 malformed events as
// fast as it can. The first, within its burst and rate, are dead-lettered
// one by one as undecodable; the rest are refused unread, in a few
// dead letters of reason rate_limited that name every one of them. The run
// is advised once to slow down and stopped at its 300th refused event; a
// run of the same tenant beside it, in the same partition, gets every
// verdict: what its run refuses is not taken from the tenant's limit.
func TestFloodedRunIsRateLimited(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	sc := streams.DefaultConfig()
	sc.Partitions, sc.Memory, sc.MaxMsgsPerSubject = 1, true, 10_000
	natstest.Provision(t, js, &sc)
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	cfg.Admission.Run = runner.Rate{Events: 50, Burst: 20}
	cfg.Admission.Tenant = runner.Rate{Events: 10, Burst: 100}
	cfg.Admission.StopAfter = 300
	runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg)

	const flood = 2000
	subject, _ := streams.EventSubject("acme", "flood", event.KindCall)
	for i := range flood {
		if _, err := js.PublishAsync(subject, []byte("not msgpack "+strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	calm := processortest.NewHistory("acme", "calm")
	for i := range 5 {
		calm.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)).Result(false, "x")
	}
	for _, ev := range calm.Events() {
		publish(t, js, ev)
	}

	var undecodable, limited int
	covered := map[uint64]bool{}
	natstest.Eventually(t, 15*time.Second, func() error {
		undecodable, limited = 0, 0
		clear(covered)
		for _, m := range natstest.Messages(t, js, streams.DeadLetterStream) {
			switch m.Header.Get(streams.HeaderReason) {
			case string(streams.DeadUndecodable):
				undecodable++
				seq, _ := strconv.ParseUint(m.Header.Get(streams.HeaderSequence), 10, 64)
				covered[seq] = true
			case string(streams.DeadRateLimited):
				limited++
				for _, part := range strings.Split(m.Header.Get(streams.HeaderSequences), ",") {
					lo, hi, _ := strings.Cut(part, "-")
					a, _ := strconv.ParseUint(lo, 10, 64)
					b := a
					if hi != "" {
						b, _ = strconv.ParseUint(hi, 10, 64)
					}
					for seq := a; seq <= b; seq++ {
						if covered[seq] {
							return fmt.Errorf("event %d has two dead letters", seq)
						}
						covered[seq] = true
					}
				}
			}
		}
		if len(covered) != flood {
			return fmt.Errorf("%d of %d flooded events have a dead letter", len(covered), flood)
		}
		return nil
	})
	t.Logf("%d flooded events: %d dead letters undecodable, %d rate_limited standing for the rest", flood, undecodable, limited)
	if undecodable < 20 || undecodable > 200 {
		t.Errorf("%d events read; want the burst of 20 and what the rate let in while the flood lasted", undecodable)
	}
	if limited >= flood/10 {
		t.Errorf("%d rate_limited dead letters for %d refused events; want a few, one per batch", limited, flood-undecodable)
	}

	var advised, stopped int
	allowed := 0
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		switch {
		case d.Run == "flood" && d.Kind == event.Advise && d.Steer != nil && d.Steer.Kind == event.SteerSlowDown:
			advised++
		case d.Run == "flood" && d.Kind == event.Stop && d.Reason == event.ReasonLimitExceeded && d.Rule == "admission":
			stopped++
		case d.Run == "calm" && d.Kind == event.Allow:
			allowed++
		}
	}
	if advised != 1 || stopped != 1 || allowed != 5 {
		t.Errorf("flood advised %d times and stopped %d times (want 1, 1); calm got %d allows of 5", advised, stopped, allowed)
	}
}
