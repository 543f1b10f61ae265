package guard_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/budget"
	"github.com/guardstream/guardstream/processors/processortest"
)

// TestRunStateDoesNotGrow: every guard keeps windows, not histories, so a
// run's snapshot after 20,000 rounds is the size it was after 200, give or
// take the width of its counters — and the cost of an event does not grow
// with the length of its run.
func TestRunStateDoesNotGrow(t *testing.T) {
	p := guard.DefaultPolicy()
	p.Budget.MaxTurns, p.Budget.MaxSteps = budget.Limit{}, budget.Limit{} // let the run go on
	for i := range p.Loop.Rules {
		if p.Loop.Rules[i].Name == "fan_out" {
			p.Loop.Rules[i].Disabled = true // the run reads files thousands of times
		}
	}
	c := guard.Chain(p)

	const rounds, early = 20_000, 200
	tools := []string{"read_file", "grep", "list_dir", "edit_file", "run_tests", "web_search"}
	h := processortest.NewHistory("acme", "long")
	for i := range rounds {
		h.Add(event.Event{Kind: event.KindStep, Step: int64(i), Turn: int64(1 + i/8), TokensIn: 1800, TokensOut: 300,
			Cost: 900, Context: int64(20_000 + 3000*(i%20)), Window: 128_000})
		h.Call(tools[i%len(tools)], fmt.Sprintf(`{"path":"src/f%d.go","n":%d}`, i%50, i))
		h.Result(i%5 == 4, fmt.Sprintf("output %d\n", i))
		if i%3 == 0 {
			h.Add(event.Event{Kind: event.KindHeartbeat})
		}
	}
	evs := h.Events()
	evs[0].Lease, evs[0].Workspace = 60_000, "/work/long" // a leased run with a workspace

	r := c.NewRun()
	var out processors.Out
	size := func() int {
		b, err := c.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		return len(b)
	}
	var atEarly int
	for i := range evs {
		c.Apply(r, &evs[i], &out)
		if r.Status == processors.StatusStopped {
			t.Fatalf("event %d stopped the run (%s); the test needs a run that goes on", i, r.Reason)
		}
		if evs[i].Kind == event.KindResult && evs[i].Call == fmt.Sprintf("c%d", early) {
			atEarly = size()
		}
	}
	atEnd := size()
	t.Logf("snapshot: %d bytes after %d rounds, %d after %d", atEarly, early, atEnd, rounds)
	if atEarly == 0 || atEnd > atEarly+64 {
		t.Errorf("the snapshot grew from %d bytes after %d rounds to %d after %d", atEarly, early, atEnd, rounds)
	}
}
