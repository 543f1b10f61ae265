package runner_test

import (
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
)

// TestSlowDrainStillUnpins: a hand-over whose drain uses up the drain
// timeout (the server answers late) still unpins the partition, so the
// next instance need not wait out the pin's TTL.
func TestSlowDrainStillUnpins(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	sc := oneMemoryPartition()
	natstest.Provision(t, js, &sc)
	px := newProxy(t, s.Addr().String())
	nc, err := nats.Connect(px.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout, cfg.DrainTimeout = 2*time.Second, time.Second, time.Second
	stop := runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg)
	h := processortest.NewHistory("acme", "r1")
	h.Call("read_file", `{"path":"a.go"}`)
	for _, ev := range h.Events() {
		publish(t, js, ev)
	}
	natstest.WaitMessages(t, js, streams.ControlStream, 1)
	// The drain waits for the server past its timeout; what the server
	// sends from half-way through comes right after.
	px.setDelay(cfg.DrainTimeout + cfg.DrainTimeout/2)
	time.AfterFunc(cfg.DrainTimeout/2, func() { px.setDelay(0) })
	stop()
	ctx := context.Background()
	c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(0))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.CachedInfo().PriorityGroups {
		if g.PinnedClientID != "" {
			t.Errorf("priority group %s still pinned to %s after the hand-over", g.Group, g.PinnedClientID)
		}
	}
}
