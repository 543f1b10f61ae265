package round

import "fmt"

// Policy bounds the barrier's state.
type Policy struct {
	// MaxOpen is the number of rounds that may be open at once; a round
	// beyond it settles the oldest open one early.
	MaxOpen int `json:"max_open"`
}

// MaxOpenLimit is the largest MaxOpen accepted. With event.MaxRoundCalls
// calls of event.MaxIDLen bytes per round it bounds the state to about
// half a MiB, which must fit in the run's snapshot.
const MaxOpenLimit = 16

// DefaultPolicy returns a policy with 8 open rounds at most.
func DefaultPolicy() Policy { return Policy{MaxOpen: 8} }

// Validate reports the first setting that makes no sense, or nil.
func (p Policy) Validate() error {
	if p.MaxOpen < 1 || p.MaxOpen > MaxOpenLimit {
		return fmt.Errorf("round.max_open is %d; want 1 to %d", p.MaxOpen, MaxOpenLimit)
	}
	return nil
}
