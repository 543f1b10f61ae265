package lease

import (
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Name is the processor's name; TimerName is the name of its timer.
const (
	Name      = "lease"
	TimerName = "lease"
)

// Keeper is the lease processor.
type Keeper struct {
	p Policy
}

// New returns a keeper with policy p, which must be valid.
func New(p Policy) *Keeper { return &Keeper{p: p} }

// Name returns "lease".
func (*Keeper) Name() string { return Name }

// State is a run's lease.
type State struct {
	TTL int64 `msgpack:"ttl,omitempty"` // lease in ms; 0: the run has none
	Gen int64 `msgpack:"gen,omitempty"` // seq of the event that last set the lease
}

// NewState returns the state of a run without a lease.
func (*Keeper) NewState() processors.State { return &State{} }

// Apply arms the lease at run start, renews it on heartbeats and on an
// accepted resume (which may reopen a stopped run, whose timers were
// cancelled), and stops the run when the current lease expires.
func (k *Keeper) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindRunStart:
		s.TTL = k.ttl(ev.Lease)
		k.renew(s, ev, out)
	case event.KindHeartbeat, event.KindResume:
		k.renew(s, ev, out)
	case event.KindTimer:
		if ev.Timer != TimerName || s.TTL == 0 || ev.Gen != s.Gen {
			return // not ours, or overtaken by a later heartbeat
		}
		out.Stop(event.ReasonLeaseExpired, event.StatusCancelled,
			fmt.Sprintf("no heartbeat within the %d ms lease since event %d; the run is cancelled", s.TTL, s.Gen),
			processors.Count("lease_ms", s.TTL), processors.Count("last_renewal", s.Gen))
	}
}

func (k *Keeper) renew(s *State, ev *event.Event, out *processors.Out) {
	if s.TTL == 0 {
		return
	}
	s.Gen = ev.Seq
	out.SetTimer(TimerName, s.TTL, ev.Seq)
}

// ttl applies the policy's default and cap to a declared lease.
func (k *Keeper) ttl(declared int64) int64 {
	t := declared
	if t == 0 {
		t = k.p.DefaultTTL
	}
	if k.p.MaxTTL > 0 && t > k.p.MaxTTL {
		t = k.p.MaxTTL
	}
	return t
}
