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
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestNewRunFloodIsRateLimited: a tenant starts 500 runs at once, each
// with a call, well within its event limit. Its limit on new runs lets
// the burst of 40 and what the rate adds start; the other runs' events
// are refused unread, as dead letters of reason rate_limited with
// Guard-Limit new_runs, and leave no state in guard_runs. A run of
// another tenant, and a run the flooding tenant started before, get every
// verdict.
func TestNewRunFloodIsRateLimited(t *testing.T) {
	nc, js := onePartition(t)
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout, cfg.CheckpointInterval = 2*time.Second, time.Second, 200*time.Millisecond
	cfg.Admission.NewRuns = runner.Rate{Events: 10, Burst: 40}
	runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg)

	old := processortest.NewHistory("evil", "old")
	old.Call("read_file", `{"path":"a.go"}`)
	for _, ev := range old.Events() {
		publish(t, js, ev)
	}
	natstest.Eventually(t, 10*time.Second, func() error { return verdicts(t, js, "evil", "old", 1) })

	const flood = 500
	for i := range flood {
		h := processortest.NewHistory("evil", fmt.Sprintf("new%d", i))
		h.Call("read_file", `{"path":"b.go"}`)
		for _, ev := range h.Events() {
			if _, err := js.PublishAsync(mustSubject(t, ev), event.AppendEvent(nil, &ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	<-js.PublishAsyncComplete()
	old.Call("read_file", `{"path":"c.go"}`)
	publish(t, js, old.Events()[len(old.Events())-1])
	calm := processortest.NewHistory("acme", "calm")
	calm.Call("read_file", `{"path":"d.go"}`)
	for _, ev := range calm.Events() {
		publish(t, js, ev)
	}
	natstest.Eventually(t, 15*time.Second, func() error {
		if err := verdicts(t, js, "evil", "old", 2); err != nil {
			return err
		}
		return verdicts(t, js, "acme", "calm", 1)
	})
	natstest.Settle(t, js, 1, 30*time.Second)

	started := map[string]bool{}
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) == nil && d.Tenant == "evil" && d.Run != "old" && d.Kind == event.Allow {
			started[d.Run] = true
		}
	}
	refused := 0
	for _, m := range natstest.Messages(t, js, streams.DeadLetterStream) {
		if m.Header.Get(streams.HeaderReason) == string(streams.DeadRateLimited) && m.Header.Get(streams.HeaderLimit) == "new_runs" {
			refused++
		}
	}
	kv, err := js.KeyValue(context.Background(), streams.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	stored := 0
	natstest.Eventually(t, 10*time.Second, func() error { // the started runs' state, checkpointed
		keys, err := kv.ListKeys(context.Background())
		if err != nil {
			return err
		}
		stored = 0
		for k := range keys.Keys() {
			if strings.HasPrefix(k, streams.RunKey("evil", "new")) {
				stored++
			}
		}
		if stored < len(started) {
			return fmt.Errorf("guard_runs holds %d of the %d started runs", stored, len(started))
		}
		return nil
	})
	t.Logf("%d new runs at once: %d started, %d refused (one dead letter per run and batch), %d with state in guard_runs",
		flood, len(started), refused, stored)
	if len(started) < 39 || len(started) > 150 { // run old took one of the burst
		t.Errorf("%d of %d new runs started; want the rest of the burst of 40 and what 10 a second adds", len(started), flood)
	}
	if refused < flood-len(started) {
		t.Errorf("%d rate_limited dead letters for %d refused runs; want at least one each", refused, flood-len(started))
	}
	if stored != len(started) {
		t.Errorf("guard_runs holds %d of the flood's runs, but %d started", stored, len(started))
	}
}

// verdicts reports whether the run has at least n allows.
func verdicts(t *testing.T, js jetstream.JetStream, tenant, run string, n int) error {
	t.Helper()
	got := 0
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) == nil && d.Tenant == tenant && d.Run == run && d.Kind == event.Allow {
			got++
		}
	}
	if got < n {
		return fmt.Errorf("%s/%s has %d allows, want %d", tenant, run, got, n)
	}
	return nil
}
