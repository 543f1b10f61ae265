package processors

import "github.com/guardstream/guardstream/event"

// Status is where a run is in its life.
type Status uint8

// Run statuses.
const (
	StatusNew     Status = iota // no event applied yet
	StatusActive                // running
	StatusStopped               // stopped by a guard; calls are rejected
	StatusEnded                 // ended by the agent
)

// Run is the state of one run across a chain: what the chain itself keeps,
// and one State per processor, in chain order.
type Run struct {
	Status Status       `msgpack:"st"`
	Reason event.Reason `msgpack:"rsn,omitempty"` // why the run stopped
	// Seq is the per-run sequence of the last applied event.
	Seq int64 `msgpack:"seq"`
	// Applied is the stream sequence of the last applied event. The chain
	// does not read it; the runner keeps it to recognise redeliveries.
	Applied uint64 `msgpack:"at,omitempty"`

	Parts []State `msgpack:"-"`
}
