package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// assets re-creates what the runner needs when it finds it missing at
// runtime: a partition's consumer, or a stream (or the streams behind the
// buckets) deleted under it. It re-creates a stream with the configuration
// it had when the runner started, and says so.
type assets struct {
	js      jetstream.JetStream
	log     *slog.Logger
	cc      streams.PartitionConsumer
	streams []jetstream.StreamConfig

	mu       sync.Mutex
	restored time.Time // when missing streams were last looked for
}

// newAssets records the configurations of the named streams, which must
// exist.
func newAssets(ctx context.Context, js jetstream.JetStream, log *slog.Logger, cc streams.PartitionConsumer, names ...string) (*assets, error) {
	a := &assets{js: js, log: log, cc: cc}
	for _, name := range names {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("runner: stream %s: %w (provision the streams first)", name, err)
		}
		a.streams = append(a.streams, s.CachedInfo().Config)
	}
	return a, nil
}

// consumer returns partition p's consumer, updated to the runner's
// configuration. A consumer that is missing is created to deliver from
// stream sequence from: the events before it are in the partition's
// checkpoint already. Instances racing to create it agree on whichever
// won.
func (a *assets) consumer(ctx context.Context, p int, from uint64, update bool) (jetstream.Consumer, error) {
	cfg := a.cc.Config(p, from)
	c, err := a.js.Consumer(ctx, streams.EventStream, cfg.Durable)
	switch {
	case err == nil && !update:
		return c, nil
	case err == nil:
		have := c.CachedInfo().Config
		cfg.DeliverPolicy, cfg.OptStartSeq = have.DeliverPolicy, have.OptStartSeq
		if streams.Covers(have, cfg) {
			return c, nil
		}
		if c, err = a.js.UpdateConsumer(ctx, streams.EventStream, cfg); err != nil {
			return nil, fmt.Errorf("runner: updating consumer %s: %w", cfg.Durable, err)
		}
		return c, nil
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		c, err = a.js.CreateConsumer(ctx, streams.EventStream, cfg)
		if errors.Is(err, jetstream.ErrConsumerExists) {
			c, err = a.js.Consumer(ctx, streams.EventStream, cfg.Durable)
		} else if err == nil && !update {
			a.log.Warn("the partition's consumer was missing; re-created it", "consumer", cfg.Durable, "stream", streams.EventStream, "from", max(from, 1))
		}
		if err != nil {
			return nil, fmt.Errorf("runner: creating consumer %s: %w", cfg.Durable, err)
		}
		return c, nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
		return nil, errors.Join(err, a.restore(ctx))
	}
	return nil, fmt.Errorf("runner: looking up consumer %s: %w", cfg.Durable, err)
}

// missing reports whether err says a stream is missing: no stream
// answered a publish, or the API says so.
func missing(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, jetstream.ErrStreamNotFound)
}

// restore re-creates the streams that are missing, at most once a
// second however many partitions ask.
func (a *assets) restore(ctx context.Context) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if time.Since(a.restored) < time.Second {
		return nil
	}
	var errs []error
	for _, cfg := range a.streams {
		_, err := a.js.Stream(ctx, cfg.Name)
		if !errors.Is(err, jetstream.ErrStreamNotFound) {
			continue
		}
		if _, err := a.js.CreateStream(ctx, cfg); err != nil && !errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			errs = append(errs, fmt.Errorf("runner: re-creating stream %s: %w", cfg.Name, err))
			continue
		}
		a.log.Warn("a stream was missing; re-created it with the configuration it had at start", "stream", cfg.Name)
	}
	a.restored = time.Now()
	return errors.Join(errs...)
}
