package integration

import (
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/streams"
)

const leaseTTL = 2 * time.Second

// TestLeaseExpires: an agent that heartbeats for longer than its lease is
// kept alive; when it stops heartbeating it is stopped with LEASE_EXPIRED
// within the lease plus a second.
func TestLeaseExpires(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme").Start(ctx, "silent", client.RunSpec{Lease: leaseTTL, ManualHeartbeat: true})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// Alive for twice the lease, heartbeating every half lease.
	var last time.Time
	for range 4 {
		if err := r.Heartbeat(ctx); err != nil {
			t.Fatal(err)
		}
		last = time.Now()
		select {
		case <-r.Done():
			t.Fatalf("stopped while heartbeating: %+v", r.Stop())
		case <-time.After(leaseTTL / 2):
		}
	}
	// Then silent.
	select {
	case <-r.Done():
	case <-time.After(leaseTTL + 3*time.Second):
		t.Fatal("the run was not stopped after its lease ran out")
	}
	elapsed := time.Since(last)
	stop := r.Stop()
	if stop.Reason != event.ReasonLeaseExpired || stop.Outcome != event.StatusCancelled || stop.Guard != "lease" {
		t.Errorf("stop %+v, want LEASE_EXPIRED by the lease guard, outcome cancelled", *stop)
	}
	if elapsed > leaseTTL+time.Second {
		t.Errorf("stopped %v after the last heartbeat; want within the lease (%v) plus 1s", elapsed, leaseTTL)
	}
	t.Logf("stopped %v after the last heartbeat (lease %v)", elapsed.Round(time.Millisecond), leaseTTL)

	// Late events are stale, and a late call is refused with the reason.
	if err := r.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	s.settle()
	var stale, stops int
	for _, m := range s.all(streams.ControlStream) {
		switch decode(t, m).Kind {
		case event.Stale:
			stale++
		case event.Stop:
			stops++
		}
	}
	if stale != 1 || stops != 1 {
		t.Errorf("%d stale and %d stop decisions, want 1 and 1", stale, stops)
	}
}

// TestAutomaticHeartbeatsKeepARunAlive: the client heartbeats by itself.
func TestAutomaticHeartbeatsKeepARunAlive(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme").Start(ctx, "alive", client.RunSpec{Lease: leaseTTL})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-r.Done():
		t.Fatalf("a heartbeating run was stopped: %+v", r.Stop())
	case <-time.After(2 * leaseTTL):
	}
	if err := r.End(ctx, event.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	r.Close()
	// Ending the run cancels its lease: no expiry follows.
	time.Sleep(leaseTTL + time.Second)
	s.settle()
	for _, m := range s.all(streams.ControlStream) {
		if d := decode(t, m); d.Kind == event.Stop {
			t.Errorf("a run that ended was stopped: %+v", d)
		}
	}
}
