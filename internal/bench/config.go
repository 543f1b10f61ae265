package bench

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/guardstream/guardstream/guard"
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
	// Partitions of the baselines, the N-partition floor and
	// guard-consumer.
	Partitions int
	// Events and Runs size the throughput phases: Rounds rounds of
	// drains, the old baseline's, the baseline's and the guard's.
	Events, Runs, Rounds int
	// Payload is the target size of an event, in bytes.
	Payload int
	// BaseWindow is the baseline's events in flight per partition (its
	// consumers' MaxAckPending), BaseBatch its pull batch.
	BaseWindow, BaseBatch int
	// Rates are the offered loads, in events/s, latency is measured at;
	// the guard's saturation follows them. At each, Pairs rounds of
	// windows of Window each compare the guard with every floor and the
	// baseline.
	Rates  []int
	Window time.Duration
	Pairs  int
	// Scale is the numbers of active runs the guard's throughput is
	// measured with; each is reported as a ratio to the first.
	Scale []int
	// Timeout bounds each step of a phase: a preload, a drain, a window.
	Timeout time.Duration
	// Checkpoint is guard-consumer's checkpoint interval.
	Checkpoint time.Duration
	// Policy is the guard's policy, as guard-consumer's -policy takes it:
	// a YAML or JSON file, or a preset by name. Empty is the default
	// policy.
	Policy string
	// HeapProfile, when set, is where a heap profile is written with the
	// largest scale's active runs loaded.
	HeapProfile string
	// ServerProfile, when set, is the prefix of the CPU profiles of the
	// server child, one over each drain (throughput and scaling), the
	// interval its CPU per event is measured over:
	// <prefix>-throughput-<round>-<pipeline>.pprof and
	// <prefix>-scale-s<step>-<runs>.pprof.
	ServerProfile string

	log    io.Writer // Run's progress log, where the runner's warnings go too
	warn   *warnings // counts the runner's warnings
	server *child    // the server child, whose CPU time is measured; nil with NATSURL
}

// DefaultConfig returns the configuration of the reference measurement.
func DefaultConfig() Config {
	return Config{
		Partitions: 8,
		Events:     200_000,
		Runs:       2_000,
		Rounds:     3,
		Payload:    256,
		BaseWindow: DefaultBaseWindow,
		BaseBatch:  DefaultBaseBatch,
		Rates:      []int{1_000, 5_000, 20_000},
		Window:     2 * time.Second,
		Pairs:      5,
		Scale:      []int{2_000, 100_000, 1_000_000},
		Timeout:    10 * time.Minute,
		Checkpoint: 5 * time.Second,
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
	if c.BaseWindow < 1 || c.BaseWindow > 1<<16 || c.BaseBatch < 1 || c.BaseBatch > c.BaseWindow {
		errs = append(errs, fmt.Errorf("baseline window %d and batch %d; want a window of 1 to 65536 events and a batch no larger", c.BaseWindow, c.BaseBatch))
	}
	if c.ServerProfile != "" && c.NATSURL != "" {
		errs = append(errs, errors.New("server profiles are of the server guard-bench starts; drop the server URL or the profile"))
	}
	for _, r := range c.Rates {
		if r < 1 {
			errs = append(errs, fmt.Errorf("rate %d; want at least 1 event/s", r))
		}
	}
	if c.Pairs < 1 || c.Pairs > 50 {
		errs = append(errs, fmt.Errorf("pairs %d; want 1 to 50", c.Pairs))
	}
	for _, n := range c.Scale {
		if n < 1 || n > 10_000_000 {
			errs = append(errs, fmt.Errorf("scale %d runs; want 1 to 10,000,000", n))
		}
	}
	if c.Window <= 0 || c.Timeout <= 0 {
		errs = append(errs, errors.New("the window and the timeout must be positive"))
	}
	if _, err := guard.Load(c.Policy); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}
