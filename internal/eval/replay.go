package eval

import (
	"slices"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Trace is a run replayed through a chain: the events applied, in order,
// and the decisions each drew.
type Trace struct {
	Events    []event.Event
	Decisions [][]event.Decision
	// Stopped is the index in Events of the event that drew a stop, or -1.
	Stopped int
	// Invalid counts the events left out because they fail event.Validate.
	Invalid int
}

// Replay applies a run's events to a fresh run of c as guard-consumer
// would, and goes on as an agent that obeys the guards would: it publishes
// nothing after a stop, and no result for a call that was refused
// (rejected, stopped or stale). What the agent would have done instead of
// a refused call is unknowable, so the recording goes on as it was.
//
// Like guard-consumer's runner, Replay names an inline output by its
// digest (event.Ref) before the chain sees a result, and it leaves out an
// event that fails event.Validate, as the runner dead-letters it.
func Replay(c *processors.Chain, events []event.Event) Trace {
	t := Trace{Stopped: -1}
	r := c.NewRun()
	var out processors.Out
	var refused []string
	for i := range events {
		ev := events[i]
		if ev.Kind == event.KindResult && slices.Contains(refused, ev.Call) {
			continue
		}
		if ev.Validate() != nil {
			t.Invalid++
			continue
		}
		if ev.Kind == event.KindResult && ev.Ref == nil {
			ev.Ref = &event.OutputRef{Digest: event.Digest([]byte(ev.Out)), Size: int64(len(ev.Out))}
		}
		c.Apply(r, &ev, &out)
		if out.Duplicate() {
			continue
		}
		if ev.Kind == event.KindResult {
			ev.Ref = events[i].Ref // as the agent sent it
		}
		t.Events = append(t.Events, ev)
		t.Decisions = append(t.Decisions, slices.Clone(out.Decisions))
		if v := out.Verdict(); ev.Kind == event.KindCall && v != nil && (v.Kind == event.Reject || v.Kind == event.Stop || v.Kind == event.Stale) {
			refused = append(refused, ev.Call)
		}
		if out.Stopped() != nil {
			t.Stopped = len(t.Events) - 1
			break
		}
	}
	return t
}
