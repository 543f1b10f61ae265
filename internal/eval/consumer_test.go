package eval_test

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/eval"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/trajectory"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestConsumerAgrees replays runs in process, as guard-eval does, and
// through a real guard-consumer runner on an embedded server, and finds
// the same decisions, byte for byte, with the same subjects and
// Nats-Msg-Ids. The runs are the hand-written samples and, where
// ../shared/trajectories is present, the first dev runs, each as recorded
// and with every fault injected: they draw stops, rejects, repairs,
// advice, pressure and bounded outputs.
func TestConsumerAgrees(t *testing.T) {
	runs := sample(t)
	if path, err := findDevSet(); err == nil {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		err = eval.Read(f, trajectory.DefaultMapping(), nil, func(in eval.Input) error {
			if n++; n <= 12 {
				runs = append(runs, in)
			}
			return nil
		})
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
	}
	p := guard.DefaultPolicy()
	var all [][]event.Event
	for i, r := range runs {
		all = append(all, r.Events)
		for _, f := range eval.Faults() {
			evs, ok := f.Inject(r.Events, p, uint64(i))
			if !ok {
				continue
			}
			for j := range evs {
				evs[j].Run = trajectory.RunID(evs[j].Run + "+" + string(f))
			}
			all = append(all, evs)
		}
	}

	// In process.
	chain := guard.Chain(p)
	type rec struct{ subject, id string }
	want := map[string][]rec{}
	data := map[string][][]byte{}
	var traces []eval.Trace
	total, kinds := 0, map[event.DecisionKind]int{}
	for _, evs := range all {
		tr := eval.Replay(chain, evs)
		traces = append(traces, tr)
		for i := range tr.Events {
			ev := &tr.Events[i]
			for j := range tr.Decisions[i] {
				d := &tr.Decisions[i][j]
				subj, err := streams.ControlSubject(d.Tenant, d.Run, d.Kind)
				if err != nil {
					t.Fatal(err)
				}
				key := d.Tenant + "." + d.Run
				want[key] = append(want[key], rec{subj, key + "." + strconv.FormatInt(ev.Seq, 10) + "." + strconv.Itoa(j)})
				data[key] = append(data[key], event.AppendDecision(nil, d))
				total++
				kinds[d.Kind]++
			}
		}
	}

	// Through guard-consumer.
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := natstest.Provision(t, js, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outputs, err := objectstore.Provision(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	rc := runner.DefaultConfig(cfg.Partitions)
	r, err := runner.New(ctx, nc, guard.Chain(p), rc, runner.WithOutputs(outputs))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	published := 0
	for _, tr := range traces {
		for i := range tr.Events {
			ev := &tr.Events[i]
			subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
			if err != nil {
				t.Fatal(err)
			}
			id := ev.Tenant + "." + ev.Run + "." + strconv.FormatInt(ev.Seq, 10)
			if _, err := js.PublishAsync(subj, event.AppendEvent(nil, ev), jetstream.WithMsgID(id)); err != nil {
				t.Fatal(err)
			}
			published++
		}
		select {
		case <-js.PublishAsyncComplete():
		case <-time.After(30 * time.Second):
			t.Fatal("publishing timed out")
		}
	}
	t.Logf("%d runs, %d events published; %d decisions expected: %v", len(traces), published, total, kinds)
	got := map[string][]*jetstream.RawStreamMsg{}
	for _, m := range natstest.WaitMessages(t, js, streams.ControlStream, total) {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		key := d.Tenant + "." + d.Run
		got[key] = append(got[key], m)
	}
	if dlq := natstest.Messages(t, js, streams.DeadLetterStream); len(dlq) > 0 {
		t.Fatalf("%d dead letters, the first %s: %s", len(dlq), dlq[0].Subject, dlq[0].Header.Get(streams.HeaderError))
	}
	for key, w := range want {
		g := got[key]
		if len(g) != len(w) {
			t.Errorf("run %s: %d decisions from guard-consumer, %d in process", key, len(g), len(w))
			continue
		}
		for i := range w {
			if g[i].Subject != w[i].subject || g[i].Header.Get(jetstream.MsgIDHeader) != w[i].id || !bytes.Equal(g[i].Data, data[key][i]) {
				t.Errorf("run %s decision %d differs:\nguard-consumer %s %s %x\nin process     %s %s %x", key, i,
					g[i].Subject, g[i].Header.Get(jetstream.MsgIDHeader), g[i].Data, w[i].subject, w[i].id, data[key][i])
				break
			}
		}
	}
	if len(got) != len(want) {
		t.Errorf("guard-consumer decided for %d runs, in process for %d", len(got), len(want))
	}
	for _, k := range []event.DecisionKind{event.Stop, event.Reject, event.Repair, event.Advise, event.Pressure, event.Output} {
		if kinds[k] == 0 {
			t.Errorf("no %s decision among the runs: the comparison does not cover it", k)
		}
	}
}
