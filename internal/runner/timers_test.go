package runner_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
)

// TestResumedRunKeepsItsLease: a run stopped and resumed in one batch
// has its timers purged for the stop and its lease set again for the
// resume; the purge must not take the new lease with it, so the resumed
// run is cancelled when its lease runs out.
func TestResumedRunKeepsItsLease(t *testing.T) {
	nc, js := onePartition(t)
	p := guard.DefaultPolicy()
	p.Lease.DefaultTTL = 1000
	p.Resume.Allow = []string{"*"}
	h := processortest.NewHistory("acme", "leased")
	for range 5 { // the loop guard stops the run at the 5th
		h.Call("read_file", `{"path":"a.go"}`).Result(false, "x")
	}
	h.Add(event.Event{Kind: event.KindResume, By: "ops", Why: "try again"})
	// Published before the runner starts, the events after the first
	// come in one batch. The runs that end before it queue their purges
	// first, so that the leased run's comes after its new lease is stored.
	var evs []event.Event
	for i := range 100 {
		evs = append(evs, processortest.NewHistory("acme", fmt.Sprintf("ended-%d", i)).End(event.StatusCompleted).Events()...)
	}
	for _, ev := range append(evs, h.Events()...) {
		publish(t, js, ev)
	}
	startChain(t, nc, guard.Chain(p), 1)
	natstest.Eventually(t, 5*time.Second, func() error {
		var got []string
		for _, m := range natstest.Messages(t, js, streams.ControlStream) {
			var d event.Decision
			if err := event.DecodeDecision(m.Data, &d); err != nil {
				t.Fatal(err)
			}
			if d.Kind == event.Stop && d.Reason == event.ReasonLeaseExpired {
				return nil
			}
			if d.Run == h.Run {
				got = append(got, fmt.Sprintf("%s@%d:%s", d.Kind, d.Seq, d.Reason))
			}
		}
		return fmt.Errorf("no stop for the lease yet: %v", got)
	})
}
