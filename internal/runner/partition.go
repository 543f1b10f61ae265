package runner

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// partition consumes one partition in order. It is owned by one goroutine.
type partition struct {
	r   *Runner
	id  int
	log *slog.Logger

	cache  map[string]*entry // run state by guard_runs key
	dirty  []*entry          // runs changed by the current batch
	futs   []jetstream.PubAckFuture
	timers []timer // timers the current batch set or cancelled
	ended  []timer // runs the current batch ended
	seen   stored  // digests of outputs this partition stored or read
	out    processors.Out
	ev     event.Event
}

func newPartition(r *Runner, id int) *partition {
	return &partition{
		r:     r,
		id:    id,
		log:   r.log.With("partition", id),
		cache: map[string]*entry{},
	}
}

// run consumes until ctx is done, recovering from errors.
func (p *partition) run(ctx context.Context) {
	for {
		err := p.consume(ctx)
		if ctx.Err() != nil {
			return
		}
		// The events of the failed batch, and any delivered after it, are
		// unacked: the server redelivers them, in order, once the ack wait
		// has passed. Pulling before then could overtake them.
		wait := p.r.cfg.AckWait + time.Second
		p.log.Warn("partition failed; resuming after redelivery", "err", err, "after", wait)
		clear(p.cache)
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// consume pulls and processes batches until ctx is done or a batch fails.
func (p *partition) consume(ctx context.Context) error {
	cons, err := p.r.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p.id))
	if err != nil {
		return err
	}
	batchSize := p.r.cfg.Batch
	msgs := make(chan jetstream.Msg, 2*batchSize)
	stop := make(chan struct{})
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-stop:
		}
	}, jetstream.PullMaxMessages(batchSize), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
		p.log.Debug("consume", "err", err)
	}))
	if err != nil {
		return err
	}
	defer func() {
		close(stop)
		cc.Stop()
	}()

	batch := make([]jetstream.Msg, 0, batchSize)
	for {
		select {
		case <-ctx.Done():
			return p.drain(cc, msgs, batch)
		case m := <-msgs:
			batch = fill(append(batch[:0], m), msgs)
			if err := p.process(ctx, batch); err != nil {
				return err
			}
		}
	}
}

// drain processes what was already delivered, so a clean shutdown leaves
// nothing for the next owner to wait for.
func (p *partition) drain(cc jetstream.ConsumeContext, msgs chan jetstream.Msg, batch []jetstream.Msg) error {
	ctx, cancel := context.WithTimeout(context.Background(), p.r.cfg.AckWait)
	defer cancel()
	cc.Drain()
	for {
		select {
		case m := <-msgs:
			if err := p.process(ctx, fill(append(batch[:0], m), msgs)); err != nil {
				return err
			}
		case <-cc.Closed():
			for len(msgs) > 0 {
				if err := p.process(ctx, fill(batch[:0], msgs)); err != nil {
					return err
				}
			}
			return nil
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// fill adds messages that are already waiting, up to the batch's capacity.
func fill(batch []jetstream.Msg, msgs chan jetstream.Msg) []jetstream.Msg {
	for len(batch) < cap(batch) {
		select {
		case m := <-msgs:
			batch = append(batch, m)
		default:
			return batch
		}
	}
	return batch
}

// process applies a batch and acks it once its decisions and state are
// stored. On error nothing of the batch is acked and the cache is suspect.
func (p *partition) process(ctx context.Context, batch []jetstream.Msg) error {
	p.futs, p.dirty, p.timers, p.ended = p.futs[:0], p.dirty[:0], p.timers[:0], p.ended[:0]
	for _, m := range batch {
		if err := p.handle(ctx, m); err != nil {
			return err
		}
	}
	if err := p.publishTimers(); err != nil {
		return err
	}
	if err := p.await(ctx, nil); err != nil {
		return err
	}
	if err := p.flush(ctx); err != nil {
		return err
	}
	return batch[len(batch)-1].Ack()
}

// await waits for every pending publish to be stored, calling stored with
// the index and ack of each when it is not nil.
func (p *partition) await(ctx context.Context, stored func(i int, ack *jetstream.PubAck)) error {
	var first error
	for i, f := range p.futs {
		select {
		case ack := <-f.Ok():
			if stored != nil {
				stored(i, ack)
			}
		case err := <-f.Err():
			if first == nil {
				first = err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	p.futs = p.futs[:0]
	if first != nil {
		return errors.Join(errPublish, first)
	}
	return nil
}
