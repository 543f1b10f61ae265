package loop

// MaxPending bounds the calls awaiting a result that the state remembers.
const MaxPending = 64

// State is the detector's state for one run. It is bounded: a window of
// recent signatures and the calls still awaiting results, never a history.
type State struct {
	Sig        uint64   `msgpack:"sig,omitempty"`  // signature of the last counted call
	Repeat     int      `msgpack:"rep,omitempty"`  // identical calls in a row, ending with Sig
	Overridden bool     `msgpack:"ovr,omitempty"`  // an override was injected for this streak
	Tool       string   `msgpack:"tool,omitempty"` // tool of the last counted call
	ToolRun    int      `msgpack:"trun,omitempty"` // calls in a row to Tool
	ToolVaried bool     `msgpack:"tvar,omitempty"` // the arguments changed within the ToolRun
	Window     []uint64 `msgpack:"win,omitempty"`  // the most recent signatures, oldest first
	Cycling    bool     `msgpack:"cyc,omitempty"`  // ping-pong was advised for the current cycle
	ResultHash uint64   `msgpack:"rh,omitempty"`   // hash of the last result of a call with Sig
	HaveResult bool     `msgpack:"hr,omitempty"`   // ResultHash is set

	Mistakes int       `msgpack:"mis,omitempty"`  // all-error rounds in a row
	Round    Round     `msgpack:"rnd"`            // the open tool round
	Pending  []Pending `msgpack:"pend,omitempty"` // calls of the round awaiting results, oldest first
}

// Round tallies the open tool round.
type Round struct {
	Calls   int `msgpack:"c,omitempty"` // calls issued
	Results int `msgpack:"r,omitempty"` // results received
	Errors  int `msgpack:"e,omitempty"` // results that were errors
}

// Pending is a call awaiting its result.
type Pending struct {
	Call string `msgpack:"c"`
	Sig  uint64 `msgpack:"s"`
}

func (s *State) addPending(call string, sig uint64) {
	if len(s.Pending) == MaxPending {
		copy(s.Pending, s.Pending[1:])
		s.Pending = s.Pending[:MaxPending-1]
	}
	s.Pending = append(s.Pending, Pending{Call: call, Sig: sig})
}

// takePending removes the pending call and returns its signature.
func (s *State) takePending(call string) (uint64, bool) {
	for i, p := range s.Pending {
		if p.Call == call {
			s.Pending = append(s.Pending[:i], s.Pending[i+1:]...)
			return p.Sig, true
		}
	}
	return 0, false
}

// push appends sig to the window, keeping the last n.
func (s *State) push(sig uint64, n int) {
	if len(s.Window) == n {
		copy(s.Window, s.Window[1:])
		s.Window = s.Window[:n-1]
	}
	s.Window = append(s.Window, sig)
}

// alternating reports whether the full window alternates between two
// different signatures.
func (s *State) alternating(n int) bool {
	w := s.Window
	if len(w) < n || w[0] == w[1] {
		return false
	}
	for i := 2; i < len(w); i++ {
		if w[i] != w[i-2] {
			return false
		}
	}
	return true
}
