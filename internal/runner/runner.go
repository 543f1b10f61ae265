package runner

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Runner consumes every partition of AGENT_EVENTS that the server pins to
// it through a processor chain. The streams must have been provisioned
// (streams.Provision).
type Runner struct {
	nc     *nats.Conn
	js     jetstream.JetStream
	chain  *processors.Chain
	cfg    Config
	log    *slog.Logger
	events jetstream.Stream // AGENT_EVENTS
	assets *assets          // what is re-created when missing
	bal    *balance
	dead   *deadLog

	instance   string             // this instance's id in service discovery, once running
	registered chan struct{}      // closed once Run has entered this instance in the roster
	purges     chan purge         // timer schedules to purge, best effort
	outputs    *objectstore.Store // full tool outputs; nil leaves results as they come
	obs        Observer

	purgeMu sync.Mutex
	// purging holds, by filter, the last purge queued and not served yet.
	purging map[string]chan struct{}
}

// Option configures a Runner.
type Option func(*Runner)

// WithOutputs makes the runner keep every result's full output in store
// and hand the guards the full output even when it was sent by reference.
func WithOutputs(store *objectstore.Store) Option {
	return func(r *Runner) { r.outputs = store }
}

// WithObserver makes the runner report what it does to o.
func WithObserver(o Observer) Option {
	return func(r *Runner) { r.obs = o }
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
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	r := &Runner{nc: nc, js: js, chain: chain, cfg: cfg, log: log, dead: newDeadLog(log), purges: make(chan purge, 4096), purging: map[string]chan struct{}{}, obs: NopObserver{}, registered: make(chan struct{})}
	for _, o := range opts {
		o(r)
	}
	names := []string{streams.EventStream, streams.TimerStream, streams.ControlStream, streams.DeadLetterStream, "KV_" + streams.RunsBucket}
	if r.outputs != nil {
		names = append(names, objectstore.Stream)
	}
	cc := streams.PartitionConsumer{Partitions: cfg.Partitions, AckWait: cfg.AckWait, MaxAckPending: r.maxAckPending(), PinnedTTL: cfg.PinnedTTL}
	if r.assets, err = newAssets(ctx, js, log, cc, names...); err != nil {
		return nil, err
	}
	if r.events, err = js.Stream(ctx, streams.EventStream); err != nil {
		return nil, fmt.Errorf("runner: %w", err)
	}
	r.bal = newBalance(cfg.Partitions, r.obs)
	return r, nil
}

// Run consumes until ctx is done, then finishes the events it holds,
// hands its partitions over, and returns within the drain timeout. A
// partition that fails recovers by itself, and one whose consumer cannot
// be reached yet (a cluster electing leaders) keeps trying; Run returns an
// error only if it cannot register with service discovery.
//
// Every instance running against the same streams shares the partitions:
// each pulls every partition it has room for, the server pins each
// partition to one of them, and an instance holding more than its fair
// share hands the excess over.
func (r *Runner) Run(ctx context.Context) error {
	rs, err := register(r.nc, r.bal)
	if err != nil {
		return fmt.Errorf("runner: registering service %s: %w", streams.RunnerService, err)
	}
	close(r.registered)
	parts := make([]*partition, r.cfg.Partitions)
	for p := range parts {
		parts[p] = newPartition(r, p)
	}
	b := &balancer{r: r, roster: rs, parts: parts, started: time.Now(), suspects: map[int]string{}}
	bg, stopBackground := context.WithCancel(context.WithoutCancel(ctx))
	defer stopBackground()
	go r.purgeLoop(bg)
	go r.dead.run(bg)
	r.instance = rs.svc.Info().ID
	var wg sync.WaitGroup
	for _, p := range parts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p.run(ctx)
		}()
	}
	r.log.Info("runner started", "instance", rs.svc.Info().ID, "partitions", r.cfg.Partitions, "batch", r.cfg.Batch, "pinned_ttl", r.cfg.PinnedTTL)
	b.run(ctx)
	rs.stop() // the others stop counting this instance, and make room for what it hands over
	wg.Wait()
	r.log.Info("runner stopped")
	return nil
}

// Registered is closed once Run has entered this instance in the
// RunnerService roster. Survey the roster from the same process only
// after it: nats.go's micro.AddService subscribes to the stats requests
// before it finishes setting the service up, and a stats request answered
// in between is a data race.
func (r *Runner) Registered() <-chan struct{} { return r.registered }

// pinOf returns the pin of partition p's priority group, "" if none, and
// since when it is pinned.
func (r *Runner) pinOf(ctx context.Context, p int) (string, time.Time, error) {
	c, err := r.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
	if err != nil {
		return "", time.Time{}, err
	}
	for _, g := range c.CachedInfo().PriorityGroups {
		if g.Group == streams.PriorityGroup {
			return g.PinnedClientID, g.PinnedTS, nil
		}
	}
	return "", time.Time{}, nil
}

// maxAckPending lets the server deliver the next batch while the
// partition has as many events in flight as it may and a coalesced ack
// still to send.
func (r *Runner) maxAckPending() int { return r.cfg.MaxInflight + r.cfg.Batch + r.ackEvery() }

// ackEvery is how many settled events a busy partition acks at once
// (pipeline).
func (r *Runner) ackEvery() int { return max(r.cfg.MaxInflight/8, 1) }
