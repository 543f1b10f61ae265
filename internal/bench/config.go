package bench

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// Config sizes a benchmark run.
type Config struct {
	// NATSURL is the server to measure against; empty starts one as a
	// child process with its store in StoreDir.
	NATSURL  string
	StoreDir string
	// Sync makes the started server fsync every write (sync_interval:
	// always): the durable mode.
	Sync bool
	// Partitions of both the baseline and guard-consumer.
	Partitions int
	// Events and Runs size the throughput phases: Rounds pairs of them,
	// the baseline's and the guard's.
	Events, Runs, Rounds int
	// Payload is the target size of an event, in bytes.
	Payload int
	// Rates are the offered loads, in events/s, latency is measured at,
	// each for RateDuration; the saturation measurement follows them.
	Rates        []int
	RateDuration time.Duration
	// MemRuns is the number of active runs memory is measured with.
	MemRuns int
	// Timeout bounds each phase.
	Timeout time.Duration
	// Checkpoint is guard-consumer's checkpoint interval.
	Checkpoint time.Duration
	// HeapProfile, when set, is where a heap profile is written with the
	// active runs of the memory phase loaded.
	HeapProfile string

	log io.Writer // Run's progress log, where the runner's warnings go too
}

// DefaultConfig returns the configuration of the reference measurement.
func DefaultConfig() Config {
	return Config{
		Partitions:   8,
		Events:       200_000,
		Runs:         2_000,
		Rounds:       3,
		Payload:      256,
		Rates:        []int{1_000, 5_000, 20_000},
		RateDuration: 5 * time.Second,
		MemRuns:      100_000,
		Timeout:      3 * time.Minute,
		Checkpoint:   5 * time.Second,
	}
}

// Validate reports every setting out of range.
func (c Config) Validate() error {
	var errs []error
	if c.Partitions < 1 {
		errs = append(errs, fmt.Errorf("partitions %d; want at least 1", c.Partitions))
	}
	if c.Events < 1000 || c.Runs < 1 || c.Runs > c.Events/4 {
		errs = append(errs, fmt.Errorf("events %d over runs %d; want at least 1000 events and 4 per run", c.Events, c.Runs))
	}
	if c.Rounds < 1 || c.Rounds > 20 {
		errs = append(errs, fmt.Errorf("rounds %d; want 1 to 20", c.Rounds))
	}
	if c.Payload < 128 || c.Payload > 16<<10 {
		errs = append(errs, fmt.Errorf("payload %d; want 128 to 16384 bytes", c.Payload))
	}
	for _, r := range c.Rates {
		if r < 1 {
			errs = append(errs, fmt.Errorf("rate %d; want at least 1 event/s", r))
		}
	}
	if c.RateDuration <= 0 || c.Timeout <= 0 || c.MemRuns < 0 {
		errs = append(errs, errors.New("durations must be positive and mem runs not negative"))
	}
	return errors.Join(errs...)
}
