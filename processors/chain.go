package processors

import (
	"bytes"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/pack"
	"github.com/vmihailenco/msgpack/v5"
)

// Chain runs processors in order over runs. It is immutable and safe for
// concurrent use; each Run must be used by one goroutine at a time.
//
// A chain serves one or more scopes, each its own processors configured
// for some tenants and agent classes. A run's first event picks its scope,
// which the run keeps, and records, for the rest of its life.
type Chain struct {
	scopes    []Scope // scopes[0] is the default
	index     map[string]int
	pick      Picker
	observers [][]int // per scope, the indices of the processors that observe refusals
}

// Scope is the processors, in order, that serve the runs of one policy
// scope, and who may resume those runs. Processors of every scope must
// have the same names in the same order, so a run's snapshot reads the
// same whatever its scope.
type Scope struct {
	Name   string // "" for the default scope
	Procs  []Processor
	Resume ResumePolicy
}

// Picker names the scope of a run from its tenant and agent class (the
// agent of its run start; "" if its first event was something else). A
// name the chain does not serve means the default scope.
type Picker func(tenant, agent string) string

// NewChain returns a chain of ps, which run in the order given, for every
// run; nobody may resume its runs.
func NewChain(ps ...Processor) *Chain {
	return NewScoped(nil, Scope{Procs: ps})
}

// NewScoped returns a chain serving scopes, the first of them the default,
// each run in the scope pick names. A nil pick puts every run in the
// default scope.
func NewScoped(pick Picker, scopes ...Scope) *Chain {
	c := &Chain{scopes: scopes, index: make(map[string]int, len(scopes)), pick: pick, observers: make([][]int, len(scopes))}
	for i := len(scopes) - 1; i >= 0; i-- {
		c.index[scopes[i].Name] = i
		for j, p := range scopes[i].Procs {
			if _, ok := p.(RefusalObserver); ok {
				c.observers[i] = append(c.observers[i], j)
			}
		}
	}
	return c
}

// Processors returns the default scope's processors in order.
func (c *Chain) Processors() []Processor { return c.scopes[0].Procs }

// Scopes returns the names of the scopes the chain serves, the default
// first.
func (c *Chain) Scopes() []string {
	names := make([]string, len(c.scopes))
	for i, s := range c.scopes {
		names[i] = s.Name
	}
	return names
}

// NewRun returns the state of a run no event has touched, in the default
// scope until its first event picks one.
func (c *Chain) NewRun() *Run {
	r := &Run{}
	c.enter(r, 0)
	return r
}

// enter puts r in the i-th scope with fresh processor states.
func (c *Chain) enter(r *Run, i int) {
	procs := c.scopes[i].Procs
	r.sc, r.Scope = i, c.scopes[i].Name
	r.Parts = make([]State, len(procs))
	for j, p := range procs {
		r.Parts[j] = p.NewState()
	}
}

// settle picks the scope of a run at its first event.
func (c *Chain) settle(r *Run, ev *event.Event) {
	if c.pick == nil {
		return
	}
	agent := ""
	if ev.Kind == event.KindRunStart {
		agent = ev.Agent
	}
	if i, ok := c.index[c.pick(ev.Tenant, agent)]; ok && i != r.sc {
		c.enter(r, i)
	}
}

// Apply folds ev into r and leaves the decisions in out.
//
// A call that is rejected or stopped is then shown to the processors that
// observe refusals (RefusalObserver), including those after the one that
// refused it.
//
// An agent event whose Seq is not above the last applied one is a
// duplicate: it changes nothing and out reports it. The run's first event
// picks its scope. Once the run has stopped, a call is rejected with the
// reason and rule the run stopped for; once it has ended or stopped, every
// other agent event draws a stale decision and changes nothing, except a
// resume its scope allows, which reopens a stopped run. Timer events
// (which carry no Seq) reach the processors only while the run is active.
// Every call receives exactly one final verdict, the last verdict among the
// decisions. Every decision a processor makes names a rule: the one it
// sets, else the processor's name.
func (c *Chain) Apply(r *Run, ev *event.Event, out *Out) {
	out.Begin(ev)
	if ev.Kind != event.KindTimer {
		if ev.Seq <= r.Seq {
			out.duplicate = true
			return
		}
		r.Seq = ev.Seq
	}
	if r.Status == StatusNew && ev.Kind != event.KindTimer {
		c.settle(r, ev)
	}
	switch {
	case ev.Kind == event.KindResume:
		if !c.resume(r, ev, out) {
			return
		}
	case r.Status == StatusStopped || r.Status == StatusEnded:
		c.afterEnd(r, ev, out)
		return
	case ev.Kind == event.KindTimer && r.Status != StatusActive:
		return
	}
	r.Status = StatusActive
	for i, p := range c.scopes[r.sc].Procs {
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
	if v := out.Verdict(); len(c.observers[r.sc]) > 0 && ev.Kind == event.KindCall && (v.Kind == event.Reject || v.Kind == event.Stop) {
		c.refused(r, ev, out)
	}
	if s := out.Stopped(); s != nil {
		r.Status, r.Reason, r.Rule = StatusStopped, s.Reason, s.Rule
	} else if ev.Kind == event.KindRunEnd {
		r.Status, out.ended = StatusEnded, true
	}
}

// afterEnd answers an event that arrived after the run stopped or ended.
func (c *Chain) afterEnd(r *Run, ev *event.Event, out *Out) {
	switch {
	case ev.Kind == event.KindTimer:
	case ev.Kind == event.KindCall && r.Status == StatusStopped:
		out.Reject(r.Reason, fmt.Sprintf("the run was stopped (%s); no further calls are allowed", r.Reason)).Rule = r.Rule
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

// snapshotCap is the room a snapshot's buffer starts with: a run's
// snapshot under the default policy is 350-550 bytes in guard-bench, and
// up to about 1.2 KB under a preset.
const snapshotCap = 512

// Encode returns the msgpack snapshot of r: a map with the chain's own
// fields under "run" and each processor's state under its name in "parts".
// Equal runs give equal bytes.
func (c *Chain) Encode(r *Run) ([]byte, error) {
	buf := bytes.NewBuffer(make([]byte, 0, snapshotCap))
	enc := msgpack.GetEncoder()
	defer msgpack.PutEncoder(enc)
	enc.Reset(buf)
	enc.UseCompactInts(true)
	if err := enc.EncodeMapLen(2); err != nil {
		return nil, err
	}
	if err := enc.EncodeString(keyRun); err != nil {
		return nil, err
	}
	if err := pack.Encode(enc, r); err != nil {
		return nil, err
	}
	if err := enc.EncodeString(keyParts); err != nil {
		return nil, err
	}
	procs := c.scopes[r.sc].Procs
	if err := enc.EncodeMapLen(len(procs)); err != nil {
		return nil, err
	}
	for i, p := range procs {
		if err := enc.EncodeString(p.Name()); err != nil {
			return nil, err
		}
		if err := pack.Encode(enc, r.Parts[i]); err != nil {
			return nil, fmt.Errorf("processors: encoding %s state: %w", p.Name(), err)
		}
	}
	return buf.Bytes(), nil
}

// Decode restores a run from a snapshot Encode made, in the scope the
// snapshot names (the default scope if the chain no longer serves it). The
// state of a processor the snapshot lacks starts fresh; parts of processors
// no longer in the chain are ignored.
func (c *Chain) Decode(b []byte) (*Run, error) {
	var snap struct {
		Run   Run                           `msgpack:"run"`
		Parts map[string]msgpack.RawMessage `msgpack:"parts"`
	}
	if err := msgpack.Unmarshal(b, &snap); err != nil {
		return nil, fmt.Errorf("processors: decoding run snapshot: %w", err)
	}
	r := &Run{}
	c.enter(r, c.index[snap.Run.Scope])
	r.Status, r.Reason, r.Rule, r.Seq, r.Applied, r.Admitted = snap.Run.Status, snap.Run.Reason, snap.Run.Rule, snap.Run.Seq, snap.Run.Applied, snap.Run.Admitted
	for i, p := range c.scopes[r.sc].Procs {
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
