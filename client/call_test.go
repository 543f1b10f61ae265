package client_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// guardPeer plays guard-consumer: it reads each event the agent publishes
// and answers with whatever script returns, and serves the agent API.
func guardPeer(t *testing.T, nc *nats.Conn, js jetstream.JetStream, script func(ev event.Event) []event.Decision) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	api := serveAgentAPI(t, nc)
	t.Cleanup(func() { _ = api.Stop() })
	cons, err := js.OrderedConsumer(ctx, streams.EventStream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	it, err := cons.Messages()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(it.Stop)
	go func() {
		for {
			m, err := it.Next()
			if err != nil {
				return
			}
			var ev event.Event
			if err := event.DecodeEvent(m.Data(), &ev); err != nil {
				return
			}
			for i, d := range script(ev) {
				d.Tenant, d.Run = ev.Tenant, ev.Run
				if d.Seq == 0 {
					d.Seq = ev.Seq
				}
				if decide(nc, d, i) != nil {
					return // the test is over and its connection closed
				}
			}
		}
	}()
}

func TestDeferAndRelease(t *testing.T) {
	nc, js := setup(t)
	// c1 is repaired then deferred; the result of c0 releases it, with an
	// allow that arrives before the agent asks for it.
	guardPeer(t, nc, js, func(ev event.Event) []event.Decision {
		switch {
		case ev.Kind == event.KindCall && ev.Call == "c0":
			return []event.Decision{{Kind: event.Allow, Call: "c0"}}
		case ev.Kind == event.KindCall && ev.Call == "c1":
			return []event.Decision{{Kind: event.Defer, Call: "c1", Args: `{"path":"a"}`}}
		case ev.Kind == event.KindResult && ev.Call == "c0":
			return []event.Decision{{Kind: event.Allow, Call: "c1"}, {Kind: event.Output, Call: "c0", View: "ok"}}
		}
		return nil
	})
	c, _ := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second))
	ctx := context.Background()
	r, err := c.Start(ctx, "r", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v0, err := r.Call(ctx, client.Call{ID: "c0", Tool: "ls"})
	if err != nil || !v0.Allowed() {
		t.Fatalf("c0: %+v, %v", v0, err)
	}
	v1, err := r.Call(ctx, client.Call{ID: "c1", Tool: "read_file", Args: `{"file_path":"a"}`})
	if err != nil || !v1.Deferred() || v1.Allowed() {
		t.Fatalf("c1: %+v, %v; want a defer", v1, err)
	}
	if err := r.Result(ctx, client.Result{Call: "c0", Out: "ok"}); err != nil {
		t.Fatal(err)
	}
	out, err := r.Output(ctx, "c0")
	if err != nil || out.View != "ok" {
		t.Fatalf("output of c0: %+v, %v", out, err)
	}
	// The release has arrived by now, before Await asks for it.
	rel, err := r.Await(ctx, v1)
	if err != nil || rel.Kind != event.Allow || rel.Call != "c1" {
		t.Fatalf("release: %+v, %v", rel, err)
	}
	if got := rel.RunArgs(`{"file_path":"a"}`); got != `{"path":"a"}` {
		t.Errorf("a released repaired call runs with %s, want the repaired args", got)
	}
}

func TestStopEndsWaits(t *testing.T) {
	nc, js := setup(t)
	guardPeer(t, nc, js, func(ev event.Event) []event.Decision {
		switch {
		case ev.Kind == event.KindCall:
			return []event.Decision{{Kind: event.Defer, Call: ev.Call}}
		case ev.Kind == event.KindHeartbeat:
			return []event.Decision{{Kind: event.Stop, Reason: event.ReasonLeaseExpired, Outcome: event.StatusCancelled}}
		}
		return nil
	})
	c, _ := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second))
	ctx := context.Background()
	r, err := c.Start(ctx, "r", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v, err := r.Call(ctx, client.Call{Tool: "ls"})
	if err != nil || !v.Deferred() {
		t.Fatalf("call: %+v, %v", v, err)
	}
	done := make(chan client.Verdict, 1)
	go func() {
		rel, _ := r.Await(ctx, v)
		done <- rel
	}()
	if err := r.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case rel := <-done:
		if rel.Kind != event.Stop || rel.Reason != event.ReasonLeaseExpired {
			t.Errorf("Await returned %+v, want the stop", rel.Decision)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Await did not return when the run stopped")
	}
	if _, err := r.Output(ctx, "c1"); !errors.Is(err, client.ErrStopped) {
		t.Errorf("Output after the stop: %v, want ErrStopped", err)
	}
}

func TestLeaseHeartbeats(t *testing.T) {
	nc, js := setup(t)
	beats := make(chan struct{}, 16)
	guardPeer(t, nc, js, func(ev event.Event) []event.Decision {
		if ev.Kind == event.KindHeartbeat {
			beats <- struct{}{}
		}
		return nil
	})
	c, _ := client.New(nc, "acme")
	ctx := context.Background()
	if _, err := c.Start(ctx, "short", client.RunSpec{Lease: 10 * time.Millisecond}); err == nil {
		t.Error("a lease under a second was accepted")
	}
	r, err := c.Start(ctx, "r", client.RunSpec{Lease: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		select {
		case <-beats:
		case <-time.After(2 * time.Second):
			t.Fatalf("no automatic heartbeat %d within 2s for a 1.5s lease", i+1)
		}
	}
	if err := r.End(ctx, event.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	time.Sleep(100 * time.Millisecond) // a beat already on its way may land
	for len(beats) > 0 {
		<-beats
	}
	time.Sleep(time.Second)
	select {
	case <-beats:
		t.Error("heartbeats went on after End")
	default:
	}
	r.Close()
}

// TestAbandon checks that an abandoned call is reported as an abandoned
// result, with the client's tenant and clock, and that a verdict coming
// for it after that is ignored.
func TestAbandon(t *testing.T) {
	nc, js := setup(t)
	abandoned := make(chan event.Event, 1)
	guardPeer(t, nc, js, func(ev event.Event) []event.Decision {
		switch {
		case ev.Kind == event.KindCall && ev.Call == "c1":
			return []event.Decision{{Kind: event.Defer, Call: "c1"}}
		case ev.Kind == event.KindResult && ev.Call == "c1":
			abandoned <- ev
			return []event.Decision{{Kind: event.Allow, Call: "c1"}} // too late
		case ev.Kind == event.KindCall:
			return []event.Decision{{Kind: event.Allow, Call: ev.Call}}
		}
		return nil
	})
	at := time.UnixMilli(1_700_000_000_000)
	c, err := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second), client.WithClock(func() time.Time { return at }))
	if err != nil {
		t.Fatal(err)
	}
	if c.Tenant() != "acme" {
		t.Errorf("Tenant() = %q, want acme", c.Tenant())
	}
	ctx := context.Background()
	r, err := c.Start(ctx, "r", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	v1, err := r.Call(ctx, client.Call{ID: "c1", Tool: "read_file"})
	if err != nil || !v1.Deferred() {
		t.Fatalf("c1: %+v, %v; want a defer", v1, err)
	}
	if err := r.Abandon(ctx, "c1"); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-abandoned:
		if !ev.Abandoned || ev.Tool != "read_file" || ev.Tenant != "acme" || ev.TS != at.UnixMilli() {
			t.Errorf("the abandoned result is %+v; want abandoned, tool read_file, tenant acme, ts %d", ev, at.UnixMilli())
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no abandoned result was published")
	}
	// The peer answers in order: once c2's verdict is in, so is the late
	// allow for c1, and Await must not take it.
	if v2, err := r.Call(ctx, client.Call{ID: "c2", Tool: "ls"}); err != nil || !v2.Allowed() {
		t.Fatalf("c2: %+v, %v", v2, err)
	}
	wait, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if rel, err := r.Await(wait, v1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Await of an abandoned call returned %+v, %v; want the context's deadline", rel.Decision, err)
	}
	if err := r.Abandon(ctx, "c9"); !errors.Is(err, client.ErrUnknownCall) {
		t.Errorf("abandoning a call never published: %v, want ErrUnknownCall", err)
	}
}
