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
	// PublishTimeout bounds the wait for the server to store a publish.
	PublishTimeout time.Duration
	// MaxPending bounds the publishes outstanding on the connection, all
	// partitions together. A partition that reaches it waits for the
	// server to store some: a slow server slows the runner down.
	MaxPending int
	// CheckpointInterval is how often a partition writes the snapshots of
	// the runs it changed, and CheckpointEvents how many events it handles
	// at most between two checkpoints. A restart replays the events since
	// the last checkpoint.
	CheckpointInterval time.Duration
	CheckpointEvents   int
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
		PublishTimeout:     5 * time.Second,
		MaxPending:         4_000,
		CheckpointInterval: 5 * time.Second,
		CheckpointEvents:   50_000,
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
	if c.MaxPending < 1 {
		errs = append(errs, fmt.Errorf("runner: max pending is %d; want at least 1", c.MaxPending))
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
	return errors.Join(errs...)
}
