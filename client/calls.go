package client

import "github.com/guardstream/guardstream/event"

// maxCalls bounds the calls a run remembers. A decision about an older call
// is ignored, as one about a call the run never published.
const maxCalls = 1024

// fate is how far a call's verdict has come.
type fate uint8

const (
	undecided fate = iota // published, no verdict yet
	deferred              // a defer came; its release has not
	decided               // a final verdict came, or the client gave up on the call
)

// callState is what a run knows of one of its calls.
type callState struct {
	tool    string
	fate    fate
	output  bool // its output decision came
	settled bool // the settling of its round came
}

// accepts reports whether a verdict of kind k decides the call now, and
// records it if so: the first final verdict wins, a defer counts once,
// before it, and after a defer only its release, an allow, does.
func (c *callState) accepts(k event.DecisionKind) bool {
	switch {
	case c.fate == decided:
		return false
	case c.fate == deferred:
		if k != event.Allow {
			return false
		}
		c.fate = decided
	case k == event.Defer:
		c.fate = deferred
	default:
		c.fate = decided
	}
	return true
}

// decide marks the call decided and reports whether it was not already.
func (c *callState) decide() bool {
	was := c.fate
	c.fate = decided
	return was != decided
}

// calls holds the state of the calls a run published, oldest first. Its
// owner's mutex guards it.
type calls struct {
	byID  map[string]*callState
	order []string
}

// add registers a call the run is publishing, forgetting the oldest one
// beyond maxCalls, and returns its state.
func (cs *calls) add(id, tool string) *callState {
	if c, ok := cs.byID[id]; ok {
		return c
	}
	if cs.byID == nil {
		cs.byID = map[string]*callState{}
	}
	if len(cs.order) >= maxCalls {
		delete(cs.byID, cs.order[0])
		cs.order = cs.order[1:]
	}
	c := &callState{tool: tool}
	cs.byID[id] = c
	cs.order = append(cs.order, id)
	return c
}

// get returns the state of a call, or nil if the run did not publish it.
func (cs *calls) get(id string) *callState { return cs.byID[id] }
