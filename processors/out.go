package processors

import "github.com/guardstream/guardstream/event"

// Out collects what the chain decides for one event: decisions to publish
// and timers to set. A processor adds to it through the methods below; the
// envelope of every decision (tenant, run, sequence, time, call) is copied
// from the event. An Out is reused from event to event, so deciding a plain
// allow costs no allocation.
//
// The methods that add a decision return it so the processor can fill in
// the fields its kind uses. The pointer is valid until the next method
// call on o.
type Out struct {
	// Decisions are the decisions for the event, in the order they were
	// made. A call's verdict is always the last verdict among them.
	Decisions []event.Decision
	// Timers are the timers the event set or cancelled, in order.
	Timers []Timer

	ev        *event.Event
	guard     string
	verdict   int // index+1 into Decisions of the call's verdict, 0 if none yet
	stop      int // index+1 into Decisions of a stop, 0 if none
	duplicate bool
	ended     bool
}

// Timer asks for a timer event named Name, with generation Gen, After
// milliseconds after the current event reached the server. A later timer
// of the same name replaces an earlier one; After < 0 cancels it. Timer
// events are delivered in stream order like any event, so what they trigger
// is replayed exactly.
type Timer struct {
	Name  string
	After int64
	Gen   int64
}

// Begin readies o for ev, forgetting the previous event's decisions.
func (o *Out) Begin(ev *event.Event) {
	clear(o.Decisions)
	o.Decisions, o.Timers = o.Decisions[:0], o.Timers[:0]
	o.ev, o.guard, o.verdict, o.stop, o.duplicate, o.ended = ev, "", 0, 0, false, false
}

// Guard returns the name of the processor deciding now, or "" outside
// the processors.
func (o *Out) Guard() string { return o.guard }

// Event returns the event being decided.
func (o *Out) Event() *event.Event { return o.ev }

// Verdict returns the call's verdict so far, or nil.
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
	return v != nil && (v.Kind == event.Reject || v.Kind == event.Defer || v.Kind == event.Stale)
}

// Duplicate reports whether the event was a duplicate the chain ignored.
func (o *Out) Duplicate() bool { return o.duplicate }

// Ended reports whether the event ended the run (a stop or the agent's
// run end): its timers are moot.
func (o *Out) Ended() bool { return o.ended }

// Stopped returns the stop decision, or nil if the run goes on.
func (o *Out) Stopped() *event.Decision {
	if o.stop == 0 {
		return nil
	}
	return &o.Decisions[o.stop-1]
}

// Advise asks the agent to honour steer before its next step.
func (o *Out) Advise(steer event.Steer, msg string, counts ...event.Counter) *event.Decision {
	d := o.add(event.Advise, msg, counts)
	d.Steer = &steer
	return d
}

// Emit adds a decision of a kind that is not a verdict, stop or advice:
// pressure, output or settled.
func (o *Out) Emit(kind event.DecisionKind, msg string, counts ...event.Counter) *event.Decision {
	return o.add(kind, msg, counts)
}

// Repair answers the call with a repair: run it with args instead. Later
// processors see the repaired arguments. On an event that is not a call it
// offers a repaired document.
func (o *Out) Repair(args, msg string, counts ...event.Counter) *event.Decision {
	d := o.verdictOf(event.Repair, msg, counts)
	d.Args = args
	return d
}

// Reject refuses the call being decided; the run goes on.
func (o *Out) Reject(reason event.Reason, msg string, counts ...event.Counter) *event.Decision {
	d := o.verdictOf(event.Reject, msg, counts)
	d.Reason = reason
	return d
}

// Defer holds the call back: it must not run until a Release for it.
func (o *Out) Defer(msg string, counts ...event.Counter) *event.Decision {
	return o.verdictOf(event.Defer, msg, counts)
}

// Release allows a call that was deferred by an earlier event.
func (o *Out) Release(call, msg string) *event.Decision {
	d := o.add(event.Allow, msg, nil)
	d.Call = call
	return d
}

// Stop ends the run with the given reason and outcome. If the event is a
// call, the stop is also its verdict.
func (o *Out) Stop(reason event.Reason, outcome event.Status, msg string, counts ...event.Counter) *event.Decision {
	var d *event.Decision
	if o.ev.Kind == event.KindCall {
		d = o.verdictOf(event.Stop, msg, counts)
	} else {
		d = o.add(event.Stop, msg, counts)
	}
	d.Reason, d.Outcome = reason, outcome
	o.stop, o.ended = len(o.Decisions), true
	return d
}

// SetTimer asks for a timer event named name, with generation gen, after
// ms milliseconds; it replaces an earlier timer of that name.
func (o *Out) SetTimer(name string, ms, gen int64) {
	o.Timers = append(o.Timers, Timer{Name: name, After: ms, Gen: gen})
}

// CancelTimer cancels the timer named name, if it is set.
func (o *Out) CancelTimer(name string) {
	o.Timers = append(o.Timers, Timer{Name: name, After: -1})
}

// allow answers the call with a plain allow.
func (o *Out) allow() {
	o.verdictOf(event.Allow, "", nil)
}

// verdictOf adds the call's verdict. A verdict replaces an earlier one
// (a repair that a later processor overrides) and keeps its repaired
// arguments, so the agent runs the repaired call when it is released. Only
// a repair or an allow can be replaced: after a reject, defer or stop the
// chain consults no further processor.
func (o *Out) verdictOf(kind event.DecisionKind, msg string, counts []event.Counter) *event.Decision {
	var args string
	if prev := o.Verdict(); prev != nil && o.ev.Kind == event.KindCall {
		args = prev.Args
		o.Decisions = append(o.Decisions[:o.verdict-1], o.Decisions[o.verdict:]...)
	}
	d := o.add(kind, msg, counts)
	d.Args = args
	if o.ev.Kind == event.KindCall {
		o.verdict = len(o.Decisions)
	}
	return d
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
		Rule:   o.guard, // a processor with rules of its own names them
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
func Count[N ~int | ~int64](name string, value N) event.Counter {
	return event.Counter{Name: name, Value: int64(value)}
}
