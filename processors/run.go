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
	Reason event.Reason `msgpack:"rsn,omitempty"`  // why the run stopped
	Rule   string       `msgpack:"rule,omitempty"` // the rule that stopped it
	// Scope names the policy scope the run's first event picked.
	Scope string `msgpack:"sc,omitempty"`
	// Seq is the per-run sequence of the last applied event.
	Seq int64 `msgpack:"seq"`
	// Applied is the stream sequence of the last applied event. The chain
	// does not read it; the runner keeps it to recognise redeliveries.
	Applied uint64 `msgpack:"at,omitempty"`
	// Admitted is what the run may still send under the runner's
	// admission limits. The chain does not read it either.
	Admitted Admitted `msgpack:"adm,omitempty"`

	Parts []State `msgpack:"-"`
	sc    int     // index of Scope in the chain
}

// Admitted is a run's account with the runner's admission limits: token
// buckets of events and bytes, refilled by the server's clock, and how
// many of its events were refused. It is kept with the run's state, so a
// replay admits and refuses exactly what was.
type Admitted struct {
	Events  int64 `msgpack:"e,omitempty"` // event tokens, in event-nanoseconds
	Bytes   int64 `msgpack:"b,omitempty"` // byte tokens, in byte-nanoseconds
	At      int64 `msgpack:"t,omitempty"` // server time (ns) of the last event counted; 0: never, the buckets are full
	Refused int64 `msgpack:"r,omitempty"` // events refused so far
}
