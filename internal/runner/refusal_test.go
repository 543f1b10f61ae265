package runner_test

import (
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
)

// TestRefusalSurvivesHandOver: a dead-lettered call of an open round
// changes the run's state (the round counts it as settled) without a
// decision of its own; a hand-over that checkpoints past it writes that
// state, so the next owner settles the round when the other results come.
// Without a per-run admission limit nothing else marks the run changed.
func TestRefusalSurvivesHandOver(t *testing.T) {
	nc, js := onePartition(t)
	chain := guard.Chain(guard.DefaultPolicy())
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	cfg.Admission.Run = runner.Rate{}
	h := processortest.NewHistory("acme", "round")
	h.Add(event.Event{Kind: event.KindRound, Calls: []string{"c1", "c2", "c3"}})
	h.Add(event.Event{Kind: event.KindCall, Call: "c1", Tool: "read_file", Args: `{"path":"a.go"}`})
	h.Add(event.Event{Kind: event.KindCall, Call: "c3", Tool: "read_file", Args: `{"path":"b.go"}`})
	h.Add(event.Event{Kind: event.KindCall, Call: "c2"}) // no tool: dead-lettered and rejected
	h.ResultOf("c1", false, "x").ResultOf("c3", false, "y")
	evs := h.Events()
	other := processortest.NewHistory("acme", "other")
	other.Call("read_file", `{"path":"c.go"}`)

	// Each part goes to a runner of its own, which hands the partition
	// over, with a checkpoint, when it stops.
	parts := [][]event.Event{evs[:4], append([]event.Event{evs[4]}, other.Events()...), evs[5:]}
	for _, part := range parts {
		stop := runnertest.Start(t, nc, chain, cfg)
		for _, ev := range part {
			publish(t, js, ev)
		}
		natstest.Settle(t, js, 1, 15*time.Second)
		stop()
	}
	var settled []string
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		if d.Kind == event.Settled {
			settled = append(settled, d.Msg)
		}
	}
	if len(settled) != 1 {
		t.Fatalf("%d settled decisions %q, want the round settled once its last result came", len(settled), settled)
	}
	t.Logf("settled: %s", settled[0])
}
