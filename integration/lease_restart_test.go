package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
)

// TestLeaseExpiresWhileGuardIsDown kills guard-consumer (SIGKILL) before
// a run's lease ends and restarts it after: the expiry, scheduled in the
// stream by the server while no guard ran, still stops the run, once.
func TestLeaseExpiresWhileGuardIsDown(t *testing.T) {
	s := newSystem(t, 4)
	first := s.startProcess()
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "orphan", client.RunSpec{Lease: leaseTTL, ManualHeartbeat: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, err := r.Call(ctx, client.Call{Tool: "ls", Args: `{}`}); err != nil || v.Kind != event.Allow {
		t.Fatalf("call before the crash: %s, %v", v.Kind, err)
	}
	if err := r.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	lastBeat := time.Now()
	time.Sleep(leaseTTL / 4)
	first.kill()

	// While no guard runs, the lease runs out: the server publishes the
	// expiry into the run's partition.
	natstest.Eventually(t, leaseTTL+3*time.Second, func() error {
		for _, m := range s.all(streams.EventStream) {
			if st, err := streams.ParseStored(m.Subject); err == nil && st.Run == "orphan" && st.Kind == "timer" {
				return nil
			}
		}
		return fmt.Errorf("no expiry in %s yet", streams.EventStream)
	})
	if time.Since(lastBeat) < leaseTTL {
		t.Fatalf("the expiry came %v after the last heartbeat, before the %v lease", time.Since(lastBeat), leaseTTL)
	}
	select {
	case <-r.Done():
		t.Fatal("the run was stopped while no guard-consumer ran")
	default:
	}

	s.startProcess()
	select {
	case <-r.Done():
	case <-time.After(15 * time.Second):
		t.Fatal("the restarted guard-consumer did not stop the expired run")
	}
	if stop := r.Stop(); stop.Reason != event.ReasonLeaseExpired {
		t.Fatalf("stopped with %s, want LEASE_EXPIRED", stop.Reason)
	}
	s.settle()
	stops := 0
	for _, m := range s.all(streams.ControlStream) {
		if d := decode(t, m); d.Kind == event.Stop {
			stops++
		}
	}
	if stops != 1 {
		t.Errorf("%d stop decisions, want exactly 1", stops)
	}
}
