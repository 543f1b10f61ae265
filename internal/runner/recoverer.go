package runner

import (
	"fmt"
	"runtime/debug"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
)

// recoverer is the runner's only way into the chain, as watermill's
// Recoverer wraps a handler: a panic in guard code is recovered where it
// happens, so that no event or snapshot can crash the process, or crash it
// again on every restart.
//
//   - Applying an event, or refusing a dead-lettered call: the run is
//     stopped with SYSTEM_ERROR, which replaces whatever the event had
//     drawn so far, and the panic is returned for the event to be
//     dead-lettered. Processors are deterministic, so replaying the event
//     panics the same way and ends the same.
//   - Reading a snapshot: the run starts afresh, as with one that cannot
//     be decoded.
//   - Writing a snapshot: the error is returned and the run's snapshot is
//     not written; it keeps its last one.
type recoverer struct{ chain *processors.Chain }

// apply folds ev into r, leaving the decisions in out, and returns the
// dead letter of a panic, or nil.
func (c recoverer) apply(r *processors.Run, ev *event.Event, out *processors.Out) (dl *deadLetter) {
	defer func() {
		if v := recover(); v != nil {
			dl = poisoned(r, ev, out, v)
		}
	}()
	c.chain.Apply(r, ev, out)
	return nil
}

// refuse tells r's guards that the call v rejects was refused, leaving the
// decisions in out, and returns the dead letter of a panic, or nil.
func (c recoverer) refuse(r *processors.Run, v *event.Decision, out *processors.Out) (dl *deadLetter) {
	defer func() {
		if v := recover(); v != nil {
			dl = poisoned(r, out.Event(), out, v)
		}
	}()
	c.chain.Refuse(r, v, out)
	return nil
}

func (c recoverer) newRun() *processors.Run { return c.chain.NewRun() }

// decode reads a snapshot.
func (c recoverer) decode(b []byte) (r *processors.Run, err error) {
	defer func() {
		if v := recover(); v != nil {
			r, err = nil, fmt.Errorf("runner: a guard panicked reading the snapshot: %v", v)
		}
	}()
	return c.chain.Decode(b)
}

// encode writes r's snapshot.
func (c recoverer) encode(r *processors.Run) (b []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			b, err = nil, fmt.Errorf("runner: a guard panicked writing the snapshot: %v\n%s", v, debug.Stack())
		}
	}()
	return c.chain.Encode(r)
}

// poisoned stops run r after a guard panicked with v on ev, and returns
// the event's dead letter.
func poisoned(r *processors.Run, ev *event.Event, out *processors.Out, v any) *deadLetter {
	guard := out.Guard()
	if guard == "" {
		guard = "chain"
	}
	dl := &deadLetter{reason: streams.DeadPanic, cause: fmt.Errorf("guard %s panicked: %v", guard, v), guard: guard, stack: debug.Stack()}
	out.Begin(ev)
	d := out.Stop(event.ReasonSystemError, event.StatusFailed, fmt.Sprintf(
		"the %s guard failed on this event, a fault of guard-consumer and not of the agent; the run is stopped and the event kept in %s",
		guard, streams.DeadLetterSubject(streams.DeadPanic)))
	d.Guard = guard
	r.Status, r.Reason = processors.StatusStopped, event.ReasonSystemError
	return dl
}
