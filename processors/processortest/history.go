package processortest

import (
	"fmt"

	"github.com/guardstream/guardstream/event"
)

// BaseTS is the time of the first event of a History: 2026-01-01T00:00:00Z.
const BaseTS = 1767225600000

// History builds the events of one run with consecutive sequences and
// timestamps one second apart, so tests read like agent transcripts.
type History struct {
	Tenant, Run string
	events      []event.Event
	seq         int64
	calls       int
	lastCall    string
}

// NewHistory returns a history of run in tenant whose first event is a run
// start for agent class "test".
func NewHistory(tenant, run string) *History {
	h := &History{Tenant: tenant, Run: run}
	h.Add(event.Event{Kind: event.KindRunStart, Agent: "test"})
	return h
}

// Add appends ev with its envelope (version, tenant, run, sequence, time)
// filled in, and returns the history. Sequences count agent events from 1;
// timer events carry none.
func (h *History) Add(ev event.Event) *History {
	ev.V, ev.Tenant, ev.Run = event.Version, h.Tenant, h.Run
	ev.TS = BaseTS + int64(len(h.events))*1000
	if ev.Kind != event.KindTimer {
		h.seq++
		ev.Seq = h.seq
	}
	h.events = append(h.events, ev)
	return h
}

// Timer appends the firing of the timer name set by the event at gen.
func (h *History) Timer(name string, gen int64) *History {
	return h.Add(event.Event{Kind: event.KindTimer, Timer: name, Gen: gen})
}

// Seq returns the sequence of the last agent event.
func (h *History) Seq() int64 { return h.seq }

// Call appends a call of tool with JSON args, with call id c1, c2, ...
func (h *History) Call(tool, args string) *History {
	h.calls++
	h.lastCall = fmt.Sprintf("c%d", h.calls)
	return h.Add(event.Event{Kind: event.KindCall, Call: h.lastCall, Tool: tool, Args: args})
}

// Result appends the result of the last call.
func (h *History) Result(failed bool, out string) *History {
	return h.ResultOf(h.lastCall, failed, out)
}

// ResultOf appends the result of the given call.
func (h *History) ResultOf(call string, failed bool, out string) *History {
	return h.Add(event.Event{Kind: event.KindResult, Call: call, Err: failed, Out: out})
}

// Step appends an LLM step.
func (h *History) Step() *History {
	return h.Add(event.Event{Kind: event.KindStep, Step: int64(len(h.events))})
}

// End appends the end of the run with the given claimed outcome.
func (h *History) End(status event.Status) *History {
	return h.Add(event.Event{Kind: event.KindRunEnd, Status: status})
}

// Events returns the events so far.
func (h *History) Events() []event.Event { return h.events }
