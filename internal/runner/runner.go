package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Runner consumes every partition of AGENT_EVENTS through a processor
// chain. The streams must have been provisioned (streams.Provision).
type Runner struct {
	nc    *nats.Conn
	js    jetstream.JetStream
	chain *processors.Chain
	cfg   Config
	log   *slog.Logger
	runs  jetstream.Stream // the stream behind the guard_runs bucket

	purges  chan string        // timer schedules to purge, best effort
	outputs *objectstore.Store // full tool outputs; nil leaves results as they come
}

// Option configures a Runner.
type Option func(*Runner)

// WithOutputs makes the runner keep every result's full output in store
// and hand the guards the full output even when it was sent by reference.
func WithOutputs(store *objectstore.Store) Option {
	return func(r *Runner) { r.outputs = store }
}

// New returns a runner that applies chain to the events on nc's server.
func New(ctx context.Context, nc *nats.Conn, chain *processors.Chain, cfg Config, opts ...Option) (*Runner, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(cfg.PublishTimeout),
		jetstream.WithPublishAsyncMaxPending(cfg.MaxPending))
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	runs, err := js.Stream(ctx, "KV_"+streams.RunsBucket)
	if err != nil {
		return nil, fmt.Errorf("runner: bucket %s: %w (provision the streams first)", streams.RunsBucket, err)
	}
	r := &Runner{nc: nc, js: js, chain: chain, cfg: cfg, log: log, runs: runs, purges: make(chan string, 4096)}
	for _, o := range opts {
		o(r)
	}
	return r, nil
}

// Run consumes until ctx is done, then finishes the events it holds and
// returns. A partition that hits an error recovers by itself; Run returns
// an error only if it cannot start.
func (r *Runner) Run(ctx context.Context) error {
	for p := range r.cfg.Partitions {
		cc := streams.PartitionConsumerConfig(p, r.cfg.AckWait, r.maxAckPending())
		if _, err := r.js.CreateOrUpdateConsumer(ctx, streams.EventStream, cc); err != nil {
			if errors.Is(err, jetstream.ErrStreamNotFound) {
				return fmt.Errorf("runner: %s does not exist (provision the streams first): %w", streams.EventStream, err)
			}
			return fmt.Errorf("runner: consumer for partition %d: %w", p, err)
		}
	}
	var wg sync.WaitGroup
	pctx, stopPurges := context.WithCancel(context.WithoutCancel(ctx))
	defer stopPurges()
	go r.purgeLoop(pctx)
	for p := range r.cfg.Partitions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			newPartition(r, p).run(ctx)
		}()
	}
	r.log.Info("runner started", "partitions", r.cfg.Partitions, "batch", r.cfg.Batch)
	wg.Wait()
	r.log.Info("runner stopped")
	return nil
}

// maxAckPending lets a few batches be in flight per partition.
func (r *Runner) maxAckPending() int { return 4 * r.cfg.Batch }
