package budget

import "slices"

// State is the guard's state for one run. It is bounded: counts, and at
// most MaxQueue call ids in flight and MaxQueue deferred.
type State struct {
	Turn    int64 `msgpack:"turn,omitempty"`   // the highest turn a step reported
	Turns   int64 `msgpack:"turns,omitempty"`  // turns opened
	Rounds  int64 `msgpack:"rounds,omitempty"` // tool rounds opened in the current turn
	InRound bool  `msgpack:"inr,omitempty"`    // a call came since the last step: its round is open
	Steps   int64 `msgpack:"steps,omitempty"`  // steps of the run
	Calls   int64 `msgpack:"calls,omitempty"`  // calls since the last step
	Tokens  int64 `msgpack:"tok,omitempty"`    // prompt and completion tokens of the run's steps
	Cost    int64 `msgpack:"cost,omitempty"`   // cost of the run's steps, in micro-units

	InFlight []string `msgpack:"fly,omitempty"` // calls let through without a result, oldest first
	Deferred []string `msgpack:"def,omitempty"` // deferred calls, oldest first
}

// land removes call from the calls in flight and reports whether it was
// there.
func (s *State) land(call string) bool {
	i := slices.Index(s.InFlight, call)
	if i < 0 {
		return false
	}
	s.InFlight = slices.Delete(s.InFlight, i, i+1)
	return true
}

// unqueue removes call from the deferred calls, if it is there.
func (s *State) unqueue(call string) {
	if i := slices.Index(s.Deferred, call); i >= 0 {
		s.Deferred = slices.Delete(s.Deferred, i, i+1)
	}
}

// dequeue removes and returns the oldest deferred call. The queue's
// backing array is kept, so a run in steady state does not allocate.
func (s *State) dequeue() string {
	call := s.Deferred[0]
	n := copy(s.Deferred, s.Deferred[1:])
	s.Deferred[n] = ""
	s.Deferred = s.Deferred[:n]
	return call
}

// addSat returns a+b, or the largest int64 if that overflows; b is clamped
// at 0, so a count never goes down.
func addSat(a, b int64) int64 {
	if b <= 0 {
		return a
	}
	if a > maxInt64-b {
		return maxInt64
	}
	return a + b
}

const maxInt64 = 1<<63 - 1
