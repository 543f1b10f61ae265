package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/streams"
)

// TestKillAnywhere kills guard-consumer with SIGKILL again and again while
// it works through a fleet's events, restarting it each time, then compares
// what it published with what a fresh consumer publishes from the same
// events: each run's decisions must be byte-identical and none published
// twice. It exercises the pipeline, the checkpoints and the replay that
// recovers from them.
func TestKillAnywhere(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts real processes for about half a minute")
	}
	s := newSystem(t, 4)
	ctx := context.Background()
	fleet := bench.Mix{Tenant: "crash", Runs: 120, Events: 24000, Payload: 200}.Messages()
	for _, m := range fleet {
		if _, err := s.js.PublishAsync(m.Subject, m.Data); err != nil {
			t.Fatal(err)
		}
	}
	<-s.js.PublishAsyncComplete()

	// Kill it at varied moments: during the first batches, during
	// checkpoints (every 100ms), during the long middle.
	for i, after := range []time.Duration{150 * time.Millisecond, 700 * time.Millisecond, 330 * time.Millisecond, 1100 * time.Millisecond, 50 * time.Millisecond} {
		p := s.startProcessWith("-checkpoint-interval", "100ms")
		time.Sleep(after)
		p.kill()
		t.Logf("kill %d after %v: %d decisions so far", i+1, after, len(s.all(streams.ControlStream)))
	}
	s.startProcessWith("-checkpoint-interval", "100ms")
	s.settle()
	crashed := records(s.all(streams.ControlStream))

	ids := map[string]int{}
	for _, r := range crashed {
		ids[r.msgID]++
		if ids[r.msgID] == 2 {
			t.Errorf("decision %s was stored twice", r.msgID)
		}
	}

	// The reference: a fresh consumer on fresh state, no crash.
	for p := range s.cfg.Partitions {
		if err := s.js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil {
			t.Fatal(err)
		}
	}
	for _, del := range []func() error{
		func() error { return s.js.DeleteKeyValue(ctx, streams.RunsBucket) },
		func() error { return s.js.DeleteStream(ctx, streams.ControlStream) },
	} {
		if err := del(); err != nil {
			t.Fatal(err)
		}
	}
	if err := streams.Provision(ctx, s.js, s.cfg); err != nil {
		t.Fatal(err)
	}
	s.startGuard(guard.DefaultPolicy())
	s.settle()
	clean := records(s.msgs(streams.ControlStream, len(crashed)))

	want, got := byRun(t, clean), byRun(t, crashed)
	if len(got) != len(want) {
		t.Fatalf("%d runs decided with crashes, %d without", len(got), len(want))
	}
	for run, w := range want {
		g := got[run]
		if fmt.Sprint(len(g)) != fmt.Sprint(len(w)) {
			t.Fatalf("run %s: %d decisions with crashes, %d without", run, len(g), len(w))
		}
		for i := range w {
			if w[i].subject != g[i].subject || w[i].msgID != g[i].msgID || string(w[i].data) != string(g[i].data) {
				t.Fatalf("run %s decision %d differs:\nwithout crashes %s\nwith crashes    %s", run, i, w[i], g[i])
			}
		}
	}
	t.Logf("%d decisions over %d runs identical to a run without crashes", len(clean), len(want))
}
