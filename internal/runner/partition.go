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

// retryPause is how long a failed partition waits before recovering.
const retryPause = time.Second

// partition consumes one partition in order. It is owned by one goroutine.
type partition struct {
	r   *Runner
	id  int
	log *slog.Logger

	cache map[string]*entry // run state by guard_runs key
	dirty []*entry          // runs changed since the last checkpoint

	cur      *pending   // the batch being handled
	inflight []*pending // batches handled, oldest first, waiting for their publishes
	free     []*pending // spent batches, for reuse
	timers   []timer    // timers the current batch set or cancelled
	ended    []timer    // runs the current batch ended
	seen     stored     // digests of outputs this partition stored

	cp      checkpoint     // the last checkpoint written or read
	writing *checkpointing // the checkpoint being written, if any
	handled uint64         // stream sequence of the last event handled
	replay  bool           // re-applying acked events: publish nothing
	sinceCP int            // events handled since the last checkpoint
	out     processors.Out
	ev      event.Event
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
		err := p.recover(ctx)
		if err == nil {
			err = p.consume(ctx)
		}
		if ctx.Err() != nil {
			return
		}
		// Recovery handles the events delivered but not acked, so there is
		// no need to wait for their redelivery; pause only so that a server
		// that is down is not hammered.
		p.log.Warn("partition failed; recovering", "err", err, "after", retryPause)
		select {
		case <-ctx.Done():
			return
		case <-time.After(retryPause):
		}
	}
}

// PullHeartbeat is how often the server reports a waiting pull. nats.go
// (v1.55) can miss re-pulling when the pull it just sent is answered before
// it notes that the send is over; the partition then idles until two
// heartbeats are missed, which at the default 15 s heartbeat stalled
// partitions for 30 s under load. A 1 s heartbeat bounds that stall at 2 s.
// guard-bench's baseline pulls the same way.
const PullHeartbeat = time.Second

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
	}, jetstream.PullMaxMessages(batchSize), jetstream.PullHeartbeat(PullHeartbeat), jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
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
	tick := time.NewTicker(p.r.cfg.CheckpointInterval)
	defer tick.Stop()
	for {
		// Wait for whatever comes first: an event, the publish the pipeline
		// or the checkpoint waits on, or the checkpoint interval. Nothing
		// here blocks on one of them alone, so a quiet partition answers a
		// new event at once.
		var stored <-chan *jetstream.PubAck
		var failed <-chan error
		if f := p.waiting(); f != nil {
			stored, failed = f.Ok(), f.Err()
		}
		select {
		case <-ctx.Done():
			return p.drain(cc, msgs, batch)
		case <-tick.C:
			if err := p.maybeCheckpoint(ctx, true); err != nil {
				return err
			}
		case m := <-msgs:
			if err := p.process(ctx, fill(append(batch[:0], m), msgs)); err != nil {
				return err
			}
		case ack := <-stored:
			p.confirm(ack.Sequence)
			if err := p.progress(ctx); err != nil {
				return err
			}
		case err := <-failed:
			return fenced(errors.Join(errPublish, err))
		}
	}
}

// confirm records the ack of the publish waiting returned.
func (p *partition) confirm(seq uint64) {
	if len(p.inflight) > 0 {
		b := p.inflight[0]
		b.acks = append(b.acks, seq)
		return
	}
	p.writing.acks = append(p.writing.acks, seq)
}

// drain processes what was already delivered and checkpoints, so a clean
// shutdown leaves nothing for the next owner to wait for or replay.
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
			return p.checkpointNow(ctx)
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

// process handles a batch and puts it in the pipeline: its decisions are
// published and it is acked once they are stored.
func (p *partition) process(ctx context.Context, batch []jetstream.Msg) error {
	p.cur = p.newPending()
	for _, m := range batch {
		if err := p.handle(ctx, m); err != nil {
			return err
		}
	}
	if err := p.publishTimers(ctx); err != nil {
		return err
	}
	p.cur.last = batch[len(batch)-1]
	p.inflight = append(p.inflight, p.cur)
	p.cur = nil
	if err := p.progress(ctx); err != nil {
		return err
	}
	return p.maybeCheckpoint(ctx, false)
}
