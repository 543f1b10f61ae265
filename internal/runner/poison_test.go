package runner_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// bomb is a guard with a bug: it panics on a call to the tool explode.
type bomb struct{}

func (bomb) Name() string               { return "bomb" }
func (bomb) NewState() processors.State { return &struct{}{} }
func (bomb) Apply(_ processors.State, ev *event.Event, _ *processors.Out) {
	if ev.Kind == event.KindCall && ev.Tool == "explode" {
		panic("bomb: cannot handle " + ev.Call)
	}
}

// panics counts the panics the runner reports.
type panics struct {
	runner.NopObserver
	n atomic.Int32
}

func (p *panics) Panicked(guard string) {
	if guard == "bomb" {
		p.n.Add(1)
	}
}

// TestPoisonEvent: a guard that panics on one event stops that event's
// run with SYSTEM_ERROR and dead-letters the event; the partition and the
// other runs go on. Handling the events again, after a redelivery or on
// fresh state, ends the same way and dead-letters nothing more.
func TestPoisonEvent(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := natstest.Provision(t, js, nil)
	chain := processors.NewChain(append(guard.Chain(guard.DefaultPolicy()).Processors(), bomb{})...)
	obs := &panics{}
	stop := startChain(t, nc, chain, cfg.Partitions, runner.WithObserver(obs))

	victim := processortest.NewHistory("acme", "victim")
	victim.Call("read_file", `{"path":"a.go"}`).Result(false, "x").
		Call("explode", `{}`).
		Call("read_file", `{"path":"b.go"}`)
	var events []event.Event
	events = append(events, victim.Events()...)
	for i := range 3 { // bystanders, some in the victim's partition
		h := processortest.NewHistory("acme", fmt.Sprintf("bystander-%d", i))
		for k := range 3 {
			h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, k)).Result(false, "x")
		}
		events = append(events, h.Events()...)
	}
	for _, ev := range events {
		publish(t, js, ev)
	}
	// The victim: allow + output, the stop, a reject; each bystander: 3
	// allows and 3 outputs.
	const want = 2 + 1 + 1 + 3*6
	original := natstest.WaitMessages(t, js, streams.ControlStream, want)
	var got []string
	for _, m := range original {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Run == "victim" {
			got = append(got, fmt.Sprintf("%s@%d:%s:%s", d.Kind, d.Seq, d.Reason, d.Guard))
		}
	}
	t.Logf("victim's decisions: %v", got)
	if fmt.Sprint(got) != "[allow@2:: output@3::output stop@4:SYSTEM_ERROR:bomb reject@5:SYSTEM_ERROR:]" {
		t.Errorf("victim's decisions %v, want the call before allowed, the poison call stopped, the next rejected", got)
	}
	dead := natstest.WaitMessages(t, js, streams.DeadLetterStream, 1)
	dl := dead[0]
	t.Logf("dead letter %s: %s=%s %s=%s", dl.Subject, streams.HeaderProcessor, dl.Header.Get(streams.HeaderProcessor),
		streams.HeaderError, dl.Header.Get(streams.HeaderError))
	if dl.Subject != streams.DeadLetterSubject(streams.DeadPanic) || dl.Header.Get(streams.HeaderProcessor) != "bomb" {
		t.Errorf("dead letter on %s by %q, want %s by bomb", dl.Subject, dl.Header.Get(streams.HeaderProcessor), streams.DeadLetterSubject(streams.DeadPanic))
	}
	if n := obs.n.Load(); n != 1 {
		t.Errorf("the observer saw %d panics of bomb, want 1", n)
	}
	stop()

	// Redelivery of everything to run state that reflects it: no change.
	ctx := context.Background()
	for p := range cfg.Partitions {
		if err := js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil {
			t.Fatal(err)
		}
	}
	stop = startChain(t, nc, chain, cfg.Partitions)
	natstest.Settle(t, js, cfg.Partitions, 15*time.Second)
	stop()
	if n := len(natstest.Messages(t, js, streams.ControlStream)); n != want {
		t.Errorf("after redelivery the control stream holds %d decisions, want %d", n, want)
	}

	// Fresh state: the same decisions, byte for byte, and the dead letter
	// is a duplicate.
	for p := range cfg.Partitions {
		if err := js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.DeleteKeyValue(ctx, streams.RunsBucket); err != nil {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, streams.ControlStream); err != nil {
		t.Fatal(err)
	}
	natstest.Provision(t, js, &cfg)
	startChain(t, nc, chain, cfg.Partitions)
	replayed := natstest.WaitMessages(t, js, streams.ControlStream, want)
	natstest.Settle(t, js, cfg.Partitions, 15*time.Second)
	byID := map[string]string{}
	for _, m := range original {
		byID[m.Header.Get(jetstream.MsgIDHeader)] = string(m.Data)
	}
	for _, m := range replayed {
		if byID[m.Header.Get(jetstream.MsgIDHeader)] != string(m.Data) {
			t.Errorf("decision %s differs on replay", m.Header.Get(jetstream.MsgIDHeader))
		}
	}
	if n := len(natstest.Messages(t, js, streams.DeadLetterStream)); n != 1 {
		t.Errorf("%d dead letters after the replay, want 1", n)
	}
}
