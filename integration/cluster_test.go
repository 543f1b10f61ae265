package integration

import (
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestClusterFaults runs two runners on a 3-node JetStream cluster with
// every stream replicated three times, while a fleet publishes. Mid-stream
// the leaders of the streams and of the partition consumers step down, and
// the node leading AGENT_EVENTS is shut down, then restarted. No event the
// server acknowledged may be lost, processing must go on, and the
// decisions must equal those of one uninterrupted runner over the same
// events.
func TestClusterFaults(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a 3-node cluster for about half a minute")
	}
	skipUnderRace(t)
	ctx := context.Background()
	c := natstest.RunCluster(t, 3)
	nc := c.Connect("test")
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := streams.DefaultConfig()
	cfg.Partitions, cfg.Replicas = 4, 3
	natstest.Provision(t, js, &cfg)
	oc := objectstore.DefaultConfig()
	oc.Replicas = 3
	outputs, err := objectstore.Provision(ctx, js, oc)
	if err != nil {
		t.Fatal(err)
	}
	s := &system{t: t, nc: nc, js: js, cfg: cfg, outputs: outputs}
	var stops []func()
	for _, name := range []string{"runner-1", "runner-2"} {
		rnc := c.Connect(name)
		rjs, _ := jetstream.New(rnc)
		routs, err := objectstore.Open(ctx, rjs, oc)
		if err != nil {
			t.Fatal(err)
		}
		stops = append(stops, startRunner(t, rnc, cfg.Partitions, routs, guard.DefaultPolicy()))
	}
	f := feed(t, c.Connect("fleet"), bench.Mix{Tenant: "cluster", Runs: 60, Events: 4000, Payload: 200}, 500)

	time.Sleep(1500 * time.Millisecond)
	for _, stream := range []string{streams.EventStream, streams.ControlStream, "KV_" + streams.RunsBucket} {
		old := natstest.StepDownStream(t, nc, stream)
		t.Logf("%d events published: %s leader %s stepped down", f.sent.Load(), stream, old)
	}
	time.Sleep(1500 * time.Millisecond)
	for p := range cfg.Partitions {
		old := natstest.StepDownConsumer(t, nc, streams.EventStream, streams.ConsumerName(p))
		t.Logf("%d events published: consumer %s leader %s stepped down", f.sent.Load(), streams.ConsumerName(p), old)
	}
	time.Sleep(1500 * time.Millisecond)
	info, err := js.Stream(ctx, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	leader := info.CachedInfo().Cluster.Leader
	down := c.Index(leader)
	c.Shutdown(down)
	t.Logf("%d events published: node %s, leading %s, shut down", f.sent.Load(), leader, streams.EventStream)
	time.Sleep(3 * time.Second)
	c.Restart(down)
	t.Logf("%d events published: node %s restarted", f.sent.Load(), leader)

	f.wait(t, 60*time.Second)
	natstest.Settle(t, js, cfg.Partitions, 60*time.Second)
	stored := map[string]bool{}
	for _, m := range natstest.Messages(t, js, streams.EventStream) {
		stored[m.Header.Get(jetstream.MsgIDHeader)] = true
	}
	lost := 0
	for id := range f.acked {
		if !stored[id] {
			lost++
			t.Errorf("event %s was acknowledged but is not in %s", id, streams.EventStream)
		}
	}
	t.Logf("%d events acknowledged, %d lost", len(f.acked), lost)
	for _, stop := range stops {
		stop()
	}

	// The reference needs every node: R3 streams are created afresh. A
	// leader change can make the stream store a run's decisions in
	// another order: each must still be there once, as the reference has
	// it.
	c.WaitReady()
	t.Log(natstest.SameDecisionsStored(t, natstest.Control(t, js), s.reference()))
}
