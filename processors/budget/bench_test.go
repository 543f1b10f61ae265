package budget_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/budget"
	"github.com/guardstream/guardstream/processors/processortest"
)

// benchPolicy is the default policy with the run-wide counts lifted out
// of reach, so that a benchmark can replay its history for as long as it
// likes: every check still runs on every event.
func benchPolicy() budget.Policy {
	p := budget.DefaultPolicy()
	p.MaxTurns.Max, p.MaxSteps.Max, p.MaxTokens.Max, p.MaxCost.Max = 1<<62, 1<<62, 1<<62, 1<<62
	return p
}

// mix returns a realistic stretch of a run: steps of a new turn every
// fourth step, each step a round of one to four calls over a few tools,
// and every eighth step a wide round of twelve calls, four of which wait
// for a slot (max_in_flight is 8).
func mix() []event.Event {
	tools := []string{"read_file", "grep", "edit_file", "list_dir", "run_tests"}
	h := processortest.NewHistory("acme", "bench")
	n := 0
	for s := range 64 {
		h.Add(event.Event{Kind: event.KindStep, Step: int64(s), Turn: int64(s/4 + 1), TokensIn: 12000, TokensOut: 400, Cost: 40000})
		width := 1 + s%4
		if s%8 == 7 {
			width = 12
		}
		first := n
		for i := range width {
			h.Call(tools[(s+i)%len(tools)], fmt.Sprintf(`{"path":"src/f%d.go"}`, i))
			n++
		}
		for i := first; i < n; i++ {
			h.ResultOf(fmt.Sprintf("c%d", i+1), false, "ok")
		}
	}
	return h.Events()[1:]
}

// BenchmarkChain measures the budget guard, in a chain, over the mix: the
// plain allows of steps, calls and results, and the defers and releases of
// the wide rounds.
func BenchmarkChain(b *testing.B) {
	benchChain(b, mix())
}

// BenchmarkChainAllow measures the common case alone: steps, calls and
// results within every limit.
func BenchmarkChainAllow(b *testing.B) {
	// Drop the wide rounds: the events from a step 8k+7 to the next step.
	var evs []event.Event
	wide := false
	for _, ev := range mix() {
		if ev.Kind == event.KindStep {
			wide = ev.Step%8 == 7
		}
		if !wide {
			evs = append(evs, ev)
		}
	}
	benchChain(b, evs)
}

func benchChain(b *testing.B, evs []event.Event) {
	c := processors.NewChain(budget.New(benchPolicy()))
	var out processors.Out
	r := c.NewRun()
	var turn int64
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := &evs[i%len(evs)]
		if i%len(evs) == 0 {
			turn = int64(i / len(evs) * 1000) // later laps open later turns
		}
		ev.Seq = int64(i + 1) // keep sequences rising past the history
		if ev.Kind == event.KindStep {
			ev.Turn = turn + ev.Step/4 + 1
		}
		c.Apply(r, ev, &out)
		if out.Stopped() != nil {
			b.Fatalf("the run stopped at %s: %s", ev, out.Stopped().Msg)
		}
	}
}
