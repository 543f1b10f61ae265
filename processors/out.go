package processors

import "github.com/guardstream/guardstream/event"

// Out collects the decisions the chain makes for one event. A processor
// adds to it through Advise, Reject, Defer and Stop; the envelope of every
// decision (tenant, run, sequence, time, call) is copied from the event.
// An Out is reused from event to event, so appending an allow costs no
// allocation.
type Out struct {
	// Decisions are the decisions for the event, in the order they were
	// made.
	Decisions []event.Decision

	ev        *event.Event
	guard     string
	verdict   int // index+1 into Decisions of the call's verdict, 0 if none yet
	stop      int // index+1 into Decisions of a stop, 0 if none
	duplicate bool
}

// Begin readies o for ev, forgetting the previous event's decisions.
func (o *Out) Begin(ev *event.Event) {
	clear(o.Decisions)
	o.Decisions = o.Decisions[:0]
	o.ev, o.guard, o.verdict, o.stop, o.duplicate = ev, "", 0, 0, false
}

// Event returns the event being decided.
func (o *Out) Event() *event.Event { return o.ev }

// Verdict returns the verdict for the call, or nil if there is none yet.
func (o *Out) Verdict() *event.Decision {
	if o.verdict == 0 {
		return nil
	}
	return &o.Decisions[o.verdict-1]
}

// Final reports whether a reject, defer or stop has been decided, after
// which no later processor sees the event.
func (o *Out) Final() bool {
	if o.stop != 0 {
		return true
	}
	v := o.Verdict()
	return v != nil && (v.Kind == event.Reject || v.Kind == event.Defer)
}

// Duplicate reports whether the event was a duplicate the chain ignored.
func (o *Out) Duplicate() bool { return o.duplicate }

// Stopped returns the stop decision, or nil if the run goes on.
func (o *Out) Stopped() *event.Decision {
	if o.stop == 0 {
		return nil
	}
	return &o.Decisions[o.stop-1]
}

// Advise asks the agent to honour steer before its next step.
func (o *Out) Advise(steer event.Steer, msg string, counts ...event.Counter) {
	d := o.add(event.Advise, msg, counts)
	d.Steer = &steer
}

// Reject refuses the call being decided; the run goes on.
func (o *Out) Reject(reason event.Reason, msg string, counts ...event.Counter) {
	d := o.add(event.Reject, msg, counts)
	d.Reason = reason
	o.verdict = len(o.Decisions)
}

// Stop ends the run with the given reason and outcome. If the event is a
// call, the stop is also its verdict.
func (o *Out) Stop(reason event.Reason, outcome event.Status, msg string, counts ...event.Counter) {
	d := o.add(event.Stop, msg, counts)
	d.Reason, d.Outcome = reason, outcome
	o.stop = len(o.Decisions)
	if o.ev.Kind == event.KindCall {
		o.verdict = o.stop
	}
}

// allow answers the call with a plain allow.
func (o *Out) allow() {
	o.add(event.Allow, "", nil)
	o.verdict = len(o.Decisions)
}

func (o *Out) add(kind event.DecisionKind, msg string, counts []event.Counter) *event.Decision {
	ev := o.ev
	o.Decisions = append(o.Decisions, event.Decision{
		V:      event.Version,
		Kind:   kind,
		Tenant: ev.Tenant,
		Run:    ev.Run,
		Seq:    ev.Seq,
		TS:     ev.TS,
		Guard:  o.guard,
		Msg:    msg,
		Counts: counts,
	})
	d := &o.Decisions[len(o.Decisions)-1]
	if ev.Kind == event.KindCall || ev.Kind == event.KindResult {
		d.Call = ev.Call
	}
	return d
}

// Count is shorthand for an event.Counter.
func Count(name string, value int) event.Counter {
	return event.Counter{Name: name, Value: int64(value)}
}
