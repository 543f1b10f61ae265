package processors

import "github.com/guardstream/guardstream/event"

// Processor is one guard, such as loop detection. Implementations must obey
// the determinism rules in the package documentation. A Processor holds only
// immutable configuration, so one value serves every run and goroutine.
type Processor interface {
	// Name identifies the processor in decisions (Decision.Guard) and state
	// snapshots. It is a short lower-case word, stable across releases.
	Name() string
	// NewState returns the state of a run the processor has not seen yet:
	// a pointer to a struct whose exported fields carry msgpack tags.
	NewState() State
	// Apply folds ev into st, which NewState made, and appends what it
	// decides to out.
	Apply(st State, ev *event.Event, out *Out)
}

// State is one processor's state for one run.
type State any
