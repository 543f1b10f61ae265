package antipattern

// MaxPending bounds the calls awaiting a result that the state remembers.
const MaxPending = 64

// MaxCallPaths bounds the paths remembered per pending call.
const MaxCallPaths = 8

// State is the detector's state for one run.
type State struct {
	Started   bool     `msgpack:"start,omitempty"` // the run start was seen
	Workspace string   `msgpack:"ws,omitempty"`
	Declared  int      `msgpack:"decl,omitempty"` // outputs promised at run start
	Missing   []string `msgpack:"miss,omitempty"` // promised outputs not produced yet, normalised, in declared order

	Verify Verification `msgpack:"vfy"` // the last verification

	Planning int  `msgpack:"plan,omitempty"` // planning steps since the last applied change
	Advised  bool `msgpack:"adv,omitempty"`  // commit_plan was advised for this streak

	Pending []Pending `msgpack:"pend,omitempty"` // calls awaiting results, oldest first
}

// Verification is the outcome of a verifying result.
type Verification struct {
	Seen   bool   `msgpack:"seen,omitempty"`
	Failed bool   `msgpack:"fail,omitempty"`
	Call   string `msgpack:"call,omitempty"`
	Tool   string `msgpack:"tool,omitempty"`
	Exit   int64  `msgpack:"exit,omitempty"`
	Err    bool   `msgpack:"err,omitempty"`
	Seq    int64  `msgpack:"seq,omitempty"` // the result's sequence
}

// Pending is a call awaiting its result.
type Pending struct {
	Call  string   `msgpack:"c"`
	Tool  string   `msgpack:"t,omitempty"`
	Write bool     `msgpack:"w,omitempty"`
	Paths []string `msgpack:"p,omitempty"` // its paths that were missing outputs when it was made
}

func (s *State) addPending(p Pending) {
	if len(s.Pending) == MaxPending {
		copy(s.Pending, s.Pending[1:])
		s.Pending = s.Pending[:MaxPending-1]
	}
	s.Pending = append(s.Pending, p)
}

func (s *State) takePending(call string) (Pending, bool) {
	for i, p := range s.Pending {
		if p.Call == call {
			s.Pending = append(s.Pending[:i], s.Pending[i+1:]...)
			return p, true
		}
	}
	return Pending{}, false
}

// produce marks the outputs p produces, p itself or those it lies under.
func (s *State) produce(p string) {
	if p == "" {
		return
	}
	kept := s.Missing[:0]
	for _, o := range s.Missing {
		if !covers(o, p) {
			kept = append(kept, o)
		}
	}
	clear(s.Missing[len(kept):])
	s.Missing = kept
}

// wanted reports whether p would produce a missing output.
func (s *State) wanted(p string) bool {
	for _, o := range s.Missing {
		if covers(o, p) {
			return true
		}
	}
	return false
}

// covers reports whether producing p produces the output o: p is o or lies
// under it.
func covers(o, p string) bool {
	return p == o || o == "." || len(p) > len(o) && p[len(o)] == '/' && p[:len(o)] == o
}
