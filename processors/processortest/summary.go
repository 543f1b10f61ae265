package processortest

import (
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Brief renders a decision as its kind and what most distinguishes it: the
// steer constraint of an advice, else the reason, as in "advise:avoid_repeat"
// or "stop:LOOP_DETECTED", and the outcome of a stop that does not end the
// run as failed, as in "stop:LOOP_DETECTED(completed)". Table tests build
// their summaries on it.
func Brief(d *event.Decision) string {
	s := d.Kind.String()
	switch {
	case d.Steer != nil:
		s += ":" + string(d.Steer.Kind)
	case d.Reason != "":
		s += ":" + string(d.Reason)
	}
	if d.Kind == event.Stop && d.Outcome != "" && d.Outcome != event.StatusFailed {
		s += "(" + string(d.Outcome) + ")"
	}
	return s
}

// BySeq applies events to a fresh run of c and returns, by event sequence,
// what render makes of each event's decisions, leaving out the events that
// drew none. It also returns the run, for tests of the state.
func BySeq(c *processors.Chain, events []event.Event, render func([]event.Decision) string) (map[int64]string, *processors.Run) {
	r := c.NewRun()
	var out processors.Out
	got := map[int64]string{}
	for i := range events {
		ev := events[i]
		c.Apply(r, &ev, &out)
		if len(out.Decisions) > 0 {
			got[ev.Seq] = render(out.Decisions)
		}
	}
	return got, r
}
