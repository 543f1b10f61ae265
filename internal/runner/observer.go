package runner

import (
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
)

// Observer is told what the runner does, for metrics and health. The
// partitions call it from their own goroutines, concurrently and on the
// per-event path: an implementation must be safe for concurrent use, cheap
// and never block. No method receives a tenant or run id, so what it
// records cannot grow with the number of runs.
type Observer interface {
	// Applied: an event of kind k was applied to its run.
	Applied(k event.Kind)
	// Decided: a decision of kind k with reason r (often empty) was
	// published.
	Decided(k event.DecisionKind, r event.Reason)
	// DeadLettered: an event went to the dead letters with reason r.
	DeadLettered(r streams.DeadReason)
	// Batch: a partition handled a batch of n events, from its first
	// event's arrival to everything it caused being stored (when it may
	// be acked), in d.
	Batch(partition, n int, d time.Duration)
	// Owned: this instance took (true) or gave up (false) a partition.
	Owned(partition int, owned bool)
	// Recovered: a partition this instance owns has rebuilt its state and
	// consumes new events.
	Recovered(partition int)
	// Inflight: the events a partition keeps in flight at most are now
	// limit: MaxInflight as a tenure begins, less while the server stores
	// slowly (see pipeline.adapt). Called as a tenure begins and whenever
	// the limit changes, never per event.
	Inflight(partition, limit int)
	// Checkpointed: a partition stored a checkpoint at time at.
	Checkpointed(partition int, at time.Time)
	// Gap: at recovery, the events of a partition from stream sequence
	// from to to (inclusive) no longer existed.
	Gap(partition int, from, to uint64)
	// Panicked: the guard named guard panicked on an event.
	Panicked(guard string)
}

// NopObserver observes nothing; it is the default.
type NopObserver struct{}

func (NopObserver) Applied(event.Kind)                       {}
func (NopObserver) Decided(event.DecisionKind, event.Reason) {}
func (NopObserver) DeadLettered(streams.DeadReason)          {}
func (NopObserver) Batch(int, int, time.Duration)            {}
func (NopObserver) Owned(int, bool)                          {}
func (NopObserver) Recovered(int)                            {}
func (NopObserver) Inflight(int, int)                        {}
func (NopObserver) Checkpointed(int, time.Time)              {}
func (NopObserver) Gap(int, uint64, uint64)                  {}
func (NopObserver) Panicked(string)                          {}
