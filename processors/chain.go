package processors

import (
	"bytes"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/vmihailenco/msgpack/v5"
)

// Chain runs processors in order over runs. It is immutable and safe for
// concurrent use; each Run must be used by one goroutine at a time.
type Chain struct {
	procs []Processor
}

// NewChain returns a chain of ps, which run in the order given.
func NewChain(ps ...Processor) *Chain {
	return &Chain{procs: ps}
}

// Processors returns the chain's processors in order.
func (c *Chain) Processors() []Processor { return c.procs }

// NewRun returns the state of a run no event has touched.
func (c *Chain) NewRun() *Run {
	r := &Run{Parts: make([]State, len(c.procs))}
	for i, p := range c.procs {
		r.Parts[i] = p.NewState()
	}
	return r
}

// Apply folds ev into r and leaves the decisions in out.
//
// An agent event whose Seq is not above the last applied one is a
// duplicate: it changes nothing and out reports it. Once the run has
// stopped, a call is rejected with the reason the run stopped for; once it
// has ended or stopped, every other agent event draws a stale decision and
// changes nothing. Timer events (which carry no Seq) reach the processors
// only while the run is active. Every call receives exactly one final
// verdict, the last verdict among the decisions.
func (c *Chain) Apply(r *Run, ev *event.Event, out *Out) {
	out.Begin(ev)
	if ev.Kind != event.KindTimer {
		if ev.Seq <= r.Seq {
			out.duplicate = true
			return
		}
		r.Seq = ev.Seq
	}
	switch {
	case r.Status == StatusStopped || r.Status == StatusEnded:
		c.afterEnd(r, ev, out)
		return
	case ev.Kind == event.KindTimer && r.Status != StatusActive:
		return
	}
	r.Status = StatusActive
	for i, p := range c.procs {
		out.guard = p.Name()
		p.Apply(r.Parts[i], ev, out)
		if out.Final() {
			break
		}
		if v := out.Verdict(); v != nil && v.Kind == event.Repair && v.Args != ev.Args {
			repaired := *ev
			repaired.Args = v.Args
			ev = &repaired // later processors check the call as it will run
		}
	}
	out.guard = ""
	if ev.Kind == event.KindCall && out.verdict == 0 {
		out.allow()
	}
	if s := out.Stopped(); s != nil {
		r.Status, r.Reason = StatusStopped, s.Reason
	} else if ev.Kind == event.KindRunEnd {
		r.Status, out.ended = StatusEnded, true
	}
}

// afterEnd answers an event that arrived after the run stopped or ended.
func (c *Chain) afterEnd(r *Run, ev *event.Event, out *Out) {
	switch {
	case ev.Kind == event.KindTimer:
	case ev.Kind == event.KindCall && r.Status == StatusStopped:
		out.Reject(r.Reason, fmt.Sprintf("the run was stopped (%s); no further calls are allowed", r.Reason))
	case ev.Kind == event.KindCall:
		out.verdictOf(event.Stale, "the run has ended; no further calls are allowed", nil)
	default:
		out.add(event.Stale, fmt.Sprintf("the run has %s; the %s changed nothing", endedOrStopped(r), ev.Kind), nil)
	}
}

func endedOrStopped(r *Run) string {
	if r.Status == StatusStopped {
		return "stopped (" + string(r.Reason) + ")"
	}
	return "ended"
}

// Snapshot keys.
const (
	keyRun   = "run"
	keyParts = "parts"
)

// Encode returns the msgpack snapshot of r: a map with the chain's own
// fields under "run" and each processor's state under its name in "parts".
// Equal runs give equal bytes.
func (c *Chain) Encode(r *Run) ([]byte, error) {
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.UseCompactInts(true)
	if err := enc.EncodeMapLen(2); err != nil {
		return nil, err
	}
	if err := enc.EncodeString(keyRun); err != nil {
		return nil, err
	}
	if err := enc.Encode(r); err != nil {
		return nil, err
	}
	if err := enc.EncodeString(keyParts); err != nil {
		return nil, err
	}
	if err := enc.EncodeMapLen(len(c.procs)); err != nil {
		return nil, err
	}
	for i, p := range c.procs {
		if err := enc.EncodeString(p.Name()); err != nil {
			return nil, err
		}
		if err := enc.Encode(r.Parts[i]); err != nil {
			return nil, fmt.Errorf("processors: encoding %s state: %w", p.Name(), err)
		}
	}
	return buf.Bytes(), nil
}

// Decode restores a run from a snapshot Encode made. The state of a
// processor the snapshot lacks starts fresh; parts of processors no longer
// in the chain are ignored.
func (c *Chain) Decode(b []byte) (*Run, error) {
	var snap struct {
		Run   Run                           `msgpack:"run"`
		Parts map[string]msgpack.RawMessage `msgpack:"parts"`
	}
	if err := msgpack.Unmarshal(b, &snap); err != nil {
		return nil, fmt.Errorf("processors: decoding run snapshot: %w", err)
	}
	r := c.NewRun()
	r.Status, r.Reason, r.Seq, r.Applied = snap.Run.Status, snap.Run.Reason, snap.Run.Seq, snap.Run.Applied
	for i, p := range c.procs {
		raw, ok := snap.Parts[p.Name()]
		if !ok {
			continue
		}
		if err := msgpack.Unmarshal(raw, r.Parts[i]); err != nil {
			return nil, fmt.Errorf("processors: decoding %s state: %w", p.Name(), err)
		}
	}
	return r, nil
}
