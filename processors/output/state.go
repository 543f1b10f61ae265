package output

// MaxPending bounds the calls whose tool the state remembers.
const MaxPending = 64

// State is the processor's state for one run: the run's workspace, and the
// tools of recent calls that have caps of their own or are searches,
// awaiting their results.
type State struct {
	Workspace string    `msgpack:"ws,omitempty"`
	Pending   []Pending `msgpack:"pend,omitempty"` // oldest first
}

// Pending is a call awaiting its result.
type Pending struct {
	Call string `msgpack:"c"`
	Tool string `msgpack:"t"`
}

// remember records the tool of call, forgetting the oldest call when full.
func (s *State) remember(call, tool string) {
	if len(s.Pending) == MaxPending {
		copy(s.Pending, s.Pending[1:])
		s.Pending = s.Pending[:MaxPending-1]
	}
	s.Pending = append(s.Pending, Pending{Call: call, Tool: tool})
}

// take forgets call and returns its tool, or "" if it was not remembered.
func (s *State) take(call string) string {
	for i, p := range s.Pending {
		if p.Call == call {
			s.Pending = append(s.Pending[:i], s.Pending[i+1:]...)
			return p.Tool
		}
	}
	return ""
}
