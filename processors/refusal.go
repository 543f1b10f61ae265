package processors

import "github.com/guardstream/guardstream/event"

// RefusalObserver is a processor that must learn of every call the guards
// refuse, whichever refused it, such as the round barrier, which counts a
// refused call as settled because it will never have a result. A processor
// later in the chain than the one that refused a call never sees the call
// in Apply; Refused tells it.
type RefusalObserver interface {
	Processor
	// Refused tells the processor that the call ev was refused: its
	// verdict, out.Verdict(), is a reject or a stop. It is called after
	// every processor has had its turn at ev, for a call refused outside
	// the chain too (Chain.Refuse). It may add decisions that are neither
	// verdicts nor stops, such as a settled.
	Refused(st State, ev *event.Event, out *Out)
}

// refused tells the chain's observers that the call ev of r was refused.
func (c *Chain) refused(r *Run, ev *event.Event, out *Out) {
	procs := c.scopes[r.sc].Procs
	for _, i := range c.observers[r.sc] {
		out.guard = procs[i].Name()
		procs[i].(RefusalObserver).Refused(r.Parts[i], ev, out)
	}
	out.guard = ""
}

// Refuse tells the chain that a call of run r was refused outside it: the
// call's event went to the dead letters, so no processor saw it, and v,
// the reject the runner publishes for it, is its verdict. out then holds
// v, followed by what the observers of refusals decide. A run that is not
// active changes nothing.
func (c *Chain) Refuse(r *Run, v *event.Decision, out *Out) {
	ev := &event.Event{V: event.Version, Kind: event.KindCall, Tenant: v.Tenant, Run: v.Run, Seq: v.Seq, TS: v.TS, Call: v.Call}
	out.Begin(ev)
	out.Decisions = append(out.Decisions, *v)
	out.verdict = len(out.Decisions)
	if r.Status == StatusActive {
		c.refused(r, ev, out)
	}
}
