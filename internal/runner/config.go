package runner

import (
	"errors"
	"fmt"
	"log/slog"
	"time"
)

// Config tunes a Runner.
type Config struct {
	// Partitions is the number of partitions of AGENT_EVENTS (see
	// streams.Config). The runner consumes all of them.
	Partitions int
	// Batch is the most events one batch holds.
	Batch int
	// AckWait is how long the server waits for an ack before redelivering.
	// A failed batch stalls its partition this long.
	AckWait time.Duration
	// MaxEventBytes is the largest event accepted; larger ones go to the
	// dead letters with reason oversize.
	MaxEventBytes int
	// MaxInflight bounds the events a partition has handled whose effects
	// the server has not all stored yet, so that they cannot be acked.
	// A partition that reaches it waits: a slow server slows the runner
	// down.
	MaxInflight int
	// PublishTimeout is how long a partition waits, with publishes
	// outstanding, for the server to store any of them before it gives
	// up on its tenure and recovers: a server that stores slowly keeps
	// the partition waiting, one that lost them (a reconnect, a new
	// leader) fails it. It also bounds each read of the streams.
	PublishTimeout time.Duration
	// CheckpointInterval is how often a partition writes the snapshots of
	// the runs it changed, and CheckpointEvents how many events it handles
	// at most between two checkpoints. A restart replays the events since
	// the last checkpoint.
	CheckpointInterval time.Duration
	CheckpointEvents   int
	// PinnedTTL is how long a partition stays pinned to an instance that
	// stops pulling (it died, or hangs) before the server hands it to
	// another: the fail-over time.
	PinnedTTL time.Duration
	// Admission limits what a run and a tenant may send.
	Admission Admission
	// DrainTimeout bounds what a partition does when it stops or hands
	// itself over: handle what was delivered, and checkpoint.
	DrainTimeout time.Duration
	// Logger receives the runner's logs; nil discards them.
	Logger *slog.Logger
}

// DefaultConfig returns the defaults for partitions partitions.
func DefaultConfig(partitions int) Config {
	return Config{
		Partitions:         partitions,
		Batch:              256,
		AckWait:            10 * time.Second,
		MaxEventBytes:      64 << 10,
		MaxInflight:        1024,
		PublishTimeout:     5 * time.Second,
		CheckpointInterval: 5 * time.Second,
		CheckpointEvents:   50_000,
		PinnedTTL:          5 * time.Second,
		DrainTimeout:       3 * time.Second,
		Admission:          DefaultAdmission(),
	}
}

// Validate reports every setting that is out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Partitions < 1 {
		errs = append(errs, fmt.Errorf("runner: partitions is %d; want at least 1", c.Partitions))
	}
	if c.Batch < 1 {
		errs = append(errs, fmt.Errorf("runner: batch is %d; want at least 1", c.Batch))
	}
	if c.AckWait < time.Second {
		errs = append(errs, fmt.Errorf("runner: ack wait is %v; want at least 1s", c.AckWait))
	}
	if c.MaxInflight < 1 || c.MaxInflight > ringSize/8 {
		errs = append(errs, fmt.Errorf("runner: max in flight is %d; want 1 to %d events", c.MaxInflight, ringSize/8))
	}
	if c.MaxEventBytes < 1<<10 {
		errs = append(errs, fmt.Errorf("runner: max event bytes is %d; want at least 1024", c.MaxEventBytes))
	}
	if c.CheckpointInterval <= 0 || c.CheckpointEvents < 1 {
		errs = append(errs, fmt.Errorf("runner: checkpoint every %v or %d events; want a positive interval and count", c.CheckpointInterval, c.CheckpointEvents))
	}
	if c.PublishTimeout <= 0 || c.PublishTimeout >= c.AckWait {
		errs = append(errs, fmt.Errorf("runner: publish timeout is %v; want a positive duration below the ack wait (%v)", c.PublishTimeout, c.AckWait))
	}
	if c.PinnedTTL < minPinnedTTL {
		errs = append(errs, fmt.Errorf("runner: pinned TTL is %v; want at least %v", c.PinnedTTL, minPinnedTTL))
	}
	if c.DrainTimeout <= 0 {
		errs = append(errs, fmt.Errorf("runner: drain timeout is %v; want a positive duration", c.DrainTimeout))
	}
	if err := c.Admission.Validate(); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
