package pressure

import (
	"fmt"
	"math/bits"
	"slices"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Name is the guard's processor name.
const Name = "pressure"

// Monitor is the context-pressure processor.
type Monitor struct {
	p Policy
}

// New returns a monitor with policy p, which must be valid.
func New(p Policy) *Monitor {
	p.Thresholds = slices.Clone(p.Thresholds)
	return &Monitor{p: p}
}

// Name returns "pressure".
func (*Monitor) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Monitor) NewState() processors.State { return &State{} }

// Apply reads the context use a step reports and emits a pressure decision
// for each threshold it reaches from below.
func (m *Monitor) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	if ev.Kind != event.KindStep || ev.Context <= 0 || ev.Window <= 0 {
		return
	}
	s := st.(*State)
	pct := percent(ev.Context, ev.Window)
	level := int64(0)
	for _, t := range m.p.Thresholds {
		if t > pct {
			break
		}
		level = t
		if t > s.Level {
			out.Emit(event.Pressure,
				fmt.Sprintf("the context holds %d of %d tokens (%d%%), past %d%% of the window; compact it before it fills", ev.Context, ev.Window, pct, t),
				processors.Count("ctx", ev.Context), processors.Count("win", ev.Window)).Level = t
		}
	}
	s.Level = level
}

// percent returns ctx as a whole percentage of win, rounded down, for
// ctx >= 0 and win > 0, computed in 128 bits so that no token count
// overflows; a result too large for an int64 is returned as the largest
// int64.
func percent(ctx, win int64) int64 {
	hi, lo := bits.Mul64(uint64(ctx), 100)
	if hi >= uint64(win) {
		return 1<<63 - 1
	}
	q, _ := bits.Div64(hi, lo, uint64(win))
	if q > 1<<63-1 {
		return 1<<63 - 1
	}
	return int64(q)
}
