package runner_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
)

// TestReferredOutputsAreCharged: a run stores one 2 MiB output and refers
// to it in 30 results, as fast as it can, within its event limit. Each
// read is charged to the run's byte limit (1 MiB a second, 2 MiB at
// once), so the partition reads the output a few times, not 30: the rest
// of the run's events are refused unread, as rate_limited. A run beside
// it in the same partition gets every verdict.
func TestReferredOutputsAreCharged(t *testing.T) {
	nc, js := onePartition(t)
	ctx := context.Background()
	oc := objectstore.DefaultConfig()
	oc.Memory = true
	store, err := objectstore.Provision(ctx, js, oc)
	if err != nil {
		t.Fatal(err)
	}
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	cfg.Admission.Run = runner.Rate{Events: 1000, Burst: 1000, Bytes: 1 << 20, BurstBytes: 2 << 20}
	runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg, runner.WithOutputs(store))

	ref, err := objectstore.Upload(ctx, js, "acme", []byte(strings.Repeat("a log line\n", 2<<20/11)), oc)
	if err != nil {
		t.Fatal(err)
	}
	hog := processortest.NewHistory("acme", "hog")
	const results = 30
	for i := range results {
		hog.Call("read_file", fmt.Sprintf(`{"path":"build%d.log"}`, i))
		r := ref
		hog.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", hog.Seq()/2), Ref: &r})
	}
	for _, ev := range hog.Events() {
		if _, err := js.PublishAsync(mustSubject(t, ev), event.AppendEvent(nil, &ev)); err != nil {
			t.Fatal(err)
		}
	}
	<-js.PublishAsyncComplete()
	calm := processortest.NewHistory("acme", "calm")
	for i := range 3 {
		calm.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)).Result(false, "ok")
	}
	for _, ev := range calm.Events() {
		publish(t, js, ev)
	}
	natstest.Eventually(t, 15*time.Second, func() error { return verdicts(t, js, "acme", "calm", 3) })
	natstest.Settle(t, js, 1, 30*time.Second)

	outputs := 0
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) == nil && d.Run == "hog" && d.Kind == event.Output {
			outputs++
		}
	}
	refused := 0
	for _, m := range natstest.Messages(t, js, streams.DeadLetterStream) {
		if m.Header.Get(streams.HeaderReason) == string(streams.DeadRateLimited) && strings.Contains(m.Header.Get(streams.HeaderSubject), ".hog.") {
			refused++
		}
	}
	t.Logf("%d results referring to a 2 MiB output: %d read (an output decision each), %d rate_limited dead letters for the rest of the run's events",
		results, outputs, refused)
	if outputs < 1 || outputs > 4 {
		t.Errorf("the output was read for %d of %d results; want a burst's worth, 1 to 4", outputs, results)
	}
	if refused == 0 {
		t.Error("no event of the run was refused")
	}
}
