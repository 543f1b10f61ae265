package runner

import (
	"context"
	"errors"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// ending is how a tenure ended.
type ending int

const (
	endNone      ending = iota // not ended
	endStopped                 // the runner stops: drained, checkpointed, unpinned
	endReleased                // handed over for balance: drained, checkpointed, unpinned
	endLost                    // another instance owns the partition now
	endRepinned                // the server pinned the partition to this instance anew
	endPullEnded               // the pull ended under it: the consumer was deleted
	endFailed                  // NATS failed
)

// tenure is one spell of ownership of a partition, the value that says
// this instance owns it: it begins when the server pins the partition's
// priority group to this instance, which it learns from the first event
// delivered under the new pin, and ends when the pin is lost or handed
// over, or the instance stops. What it holds — the runs' cached state, the
// batches in flight, the checkpoint being written — is valid only within
// it, and is dropped with it.
//
// Pinning is not a lock: a tenure that has not yet learned that it ended
// may still publish. Its state writes are compare-and-set, so it cannot
// overwrite a newer owner's; what it publishes is what the newer owner
// publishes for the same events, under the same Nats-Msg-Id
// (docs/decisions/0008-ownership.md).
type tenure struct {
	p       *partition
	pin     string    // the server's id for the pin
	since   time.Time // when the tenure began
	pub     *publisher
	runs    runs
	pipe    pipeline
	cp      checkpointer
	live    *live
	sink    sink // live, observed
	handler handlerFunc
	handled uint64    // stream sequence of the last event handled
	turn    time.Time // when the tenure last handled a batch
	cons    uint64    // the consumer's sequence of the last delivery handled, 0 if unknown
	lim     limiter
	recs    []record
	keys    []string
}

func newTenure(p *partition, pin string, pub *publisher) *tenure {
	r := p.r
	t := &tenure{p: p, pin: pin, since: time.Now(), turn: time.Now(), pub: pub}
	t.runs = newRuns(p.state, p.path.chain, p.log)
	t.lim = newLimiter(r.cfg.Admission, r.cfg.Partitions)
	t.pipe = pipeline{pub: pub, max: r.cfg.MaxInflight, limit: r.cfg.MaxInflight, budget: r.cfg.PublishTimeout / 8, log: p.log,
		resized: func(limit int) { r.obs.Inflight(p.id, limit) }, ackEvery: r.ackEvery(), due: stoppedTimer(),
		done: func(b *pending) { r.obs.Batch(p.id, b.n, time.Since(b.start)) }}
	t.cp = checkpointer{id: p.id, every: r.cfg.CheckpointEvents, runs: &t.runs, pipe: &t.pipe,
		done: func(c checkpoint) { r.obs.Checkpointed(p.id, c.at) }, next: make(chan struct{}, 1)}
	t.live = &live{pub: pub, log: p.log, dead: r.dead, purge: r.purge, purged: r.purged, outputs: r.outputs, maxPayload: int(r.nc.MaxPayload())}
	t.sink = t.live
	if _, nop := r.obs.(NopObserver); !nop {
		t.sink = observed{sink: t.live, obs: r.obs}
	}
	p.path.runs, p.path.read = &t.runs, t.chargeRead
	t.handler = p.path.deadLettering(p.path.step)
	return t
}

// handle takes one event through the event path into s, unless this
// tenure handled it already.
func (t *tenure) handle(ctx context.Context, rec *record, s sink) error {
	if rec.seq <= t.handled {
		return nil // replayed at recovery, or reflected in the checkpoint
	}
	if err := t.handler(ctx, rec, s); err != nil {
		return err
	}
	t.handled = rec.seq
	return nil
}

// own runs the tenure: it recovers the partition's state, then handles
// batches until the tenure ends, and says how it ended. first holds the
// events delivered under the tenure's pin so far. Unless the partition
// was pinned anew, which returns the events delivered under the new pin,
// the pull is closed when own returns.
func (t *tenure) own(ctx context.Context, pl *pull, first []jetstream.Msg) (ending, []jetstream.Msg, error) {
	p := t.p
	p.r.bal.take(p.id, t.pin)
	defer p.r.bal.give(p.id)
	p.r.obs.Inflight(p.id, t.pipe.limit)
	defer t.pub.close()
	defer t.pipe.due.Stop()
	p.log.Info("partition taken", "pin", t.pin)
	rec, err := delivered(first[0])
	if err != nil {
		return t.fail(pl, err)
	}
	if err := t.recover(ctx, &rec); err != nil {
		return t.fail(pl, err)
	}
	p.r.obs.Recovered(p.id)
	select {
	case <-p.release: // asked of an earlier tenure
	default:
	}

	batch := p.batch[:0]
	// The partitions checkpoint on ticks spread over the interval, so that
	// they do not all write at once.
	every := p.r.cfg.CheckpointInterval
	tick := time.NewTimer(every + every*time.Duration(p.id)/time.Duration(p.r.cfg.Partitions))
	defer tick.Stop()
	stall := time.NewTicker(t.pub.timeout / 4)
	defer stall.Stop()
	for {
		if len(first) > 0 {
			n := min(len(first), cap(batch))
			batch, first = append(batch[:0], first[:n]...), first[n:]
			if how, rest, err := t.process(ctx, pl, batch); how != endNone || err != nil {
				return how, append(rest, first...), err
			}
			continue
		}
		// Wait for whatever comes first: an event, an acknowledgement the
		// pipeline or the checkpoint waits on, an ack falling due, the
		// checkpoint's next slice, or the checkpoint interval.
		// Nothing here blocks on one of them alone, so a quiet partition
		// answers a new event at once.
		// Acknowledgements of publishes are listened for only when
		// settling on them does something: an ack is due, or a checkpoint
		// waits for them. Otherwise they are settled as due fires.
		var acked <-chan *nats.Msg
		if t.pipe.wantsAcks() || t.cp.writing != nil {
			acked = t.pub.acks
		}
		var err error
		select {
		case <-ctx.Done():
			return endStopped, nil, t.leave(pl, batch, "stopping")
		case <-p.release:
			return endReleased, nil, t.leave(pl, batch, "handed over for balance")
		case <-tick.C:
			tick.Reset(every)
			t.cp.maybe(t.handled, t.cons, true)
			err = t.progress(ctx)
		case m := <-pl.msgs:
			if how, rest, err := t.process(ctx, pl, fill(append(batch[:0], m), pl.msgs)); how != endNone || err != nil {
				return how, rest, err
			}
		case m := <-acked:
			t.pub.record(m)
			err = t.progress(ctx)
		case <-t.pipe.due.C:
			err = t.progress(ctx)
		case <-t.cp.next:
			err = t.cp.advance(ctx, false)
		case <-stall.C:
			err = t.pub.stalled()
		case perr := <-pl.errs:
			switch {
			case errors.Is(perr, jetstream.ErrPinIDMismatch):
				pl.close()
				return endLost, nil, errUnpinned
			case errors.Is(perr, nats.ErrNoResponders): // the consumer is gone
				return t.pullEnded(ctx, pl)
			}
		case <-pl.closed:
			return t.pullEnded(ctx, pl)
		}
		if err != nil {
			return t.fail(pl, err)
		}
	}
}

// process handles a batch and puts it in the pipeline: its decisions are
// published and it is acked once they are stored. An event delivered
// under another pin ends the tenure (endRepinned): the batch is dropped
// and the events from that one on are returned for the next tenure. It
// returns endNone when the tenure goes on.
func (t *tenure) process(ctx context.Context, pl *pull, batch []jetstream.Msg) (ending, []jetstream.Msg, error) {
	for i, m := range batch {
		if pinOf(m) != t.pin {
			t.p.log.Info("partition pinned anew", "old", t.pin, "new", pinOf(m))
			return endRepinned, append([]jetstream.Msg(nil), batch[i:]...), nil
		}
	}
	err := t.stillPinned(ctx)
	if err == nil {
		err = t.handleBatch(ctx, batch)
	}
	if err != nil {
		how, _, err := t.fail(pl, err)
		return how, nil, err
	}
	return endNone, nil, nil
}

// stillPinned makes sure, when the tenure handled nothing for longer
// than the pin's TTL, that the server has not pinned the partition to
// another instance meanwhile: a process that was stopped (SIGSTOP, a long
// pause) finds events it was delivered before it stopped, and handling
// them would publish their decisions again, past the duplicate window if
// the pause was long.
func (t *tenure) stillPinned(ctx context.Context) error {
	defer func() { t.turn = time.Now() }()
	if time.Since(t.turn) <= t.p.r.cfg.PinnedTTL {
		return nil
	}
	info, err := t.p.cons.Info(ctx)
	if err != nil {
		return err
	}
	for _, g := range info.PriorityGroups {
		if g.Group == streams.PriorityGroup && g.PinnedClientID != t.pin {
			return errUnpinned
		}
	}
	return nil
}

// handleBatch handles the events of batch and queues the batch to be
// acked once what they caused is stored.
func (t *tenure) handleBatch(ctx context.Context, batch []jetstream.Msg) error {
	t.pipe.begin()
	recs := t.recs[:0]
	for _, m := range batch {
		rec, err := delivered(m)
		if err != nil {
			return err
		}
		recs = append(recs, rec)
	}
	t.recs = recs
	if err := t.handleRecords(ctx, recs, t.sink); err != nil {
		return err
	}
	t.cons = recs[len(recs)-1].cseq
	// Acking the batch settles everything handled so far, which may be
	// past its own events when they were all handled before (redelivered).
	t.pipe.end(batch[len(batch)-1], t.handled, len(batch))
	clear(recs) // let the events go
	t.cp.maybe(t.handled, t.cons, false)
	return t.progress(ctx)
}

// handleRecords takes a batch of events, consumed or read back, through
// admission and the event path into s. The runs of the batch not in the
// cache are read first, in one request.
func (t *tenure) handleRecords(ctx context.Context, recs []record, s sink) error {
	keys := t.admit(recs, t.keys[:0])
	t.keys = keys
	if len(keys) > 0 {
		if err := t.runs.load(ctx, keys...); err != nil {
			return err
		}
	}
	for i := range recs {
		rec := &recs[i]
		if rec.seq <= t.handled {
			continue
		}
		if rec.parsed && rec.over == "" {
			if err := t.admitRun(ctx, rec, s); err != nil {
				return err
			}
		}
		if rec.over != "" {
			t.lim.refused = append(t.lim.refused, rec)
			t.handled = rec.seq
			continue
		}
		if err := t.handle(ctx, rec, s); err != nil {
			return err
		}
	}
	if err := t.flushRefused(ctx, s); err != nil {
		return err
	}
	return s.flush(ctx)
}

// progress moves the pipeline and the checkpoint on, without waiting
// unless too many events are in flight.
func (t *tenure) progress(ctx context.Context) error {
	if err := t.pipe.settle(ctx, false); err != nil {
		return err
	}
	return t.cp.advance(ctx, false)
}

// fail ends the tenure on err: the pull is closed at once, dropping what
// was delivered, and nothing more is published or acked. A fenced write
// means another instance owns the partition.
func (t *tenure) fail(pl *pull, err error) (ending, []jetstream.Msg, error) {
	pl.close()
	if errors.Is(err, errFenced) || errors.Is(err, errUnpinned) {
		return endLost, nil, err
	}
	return endFailed, nil, err
}

// unpinTimeout bounds the unpin that ends a hand-over, apart from the
// drain: one that used up the drain timeout must still let the pin go, or
// the next owner waits out the pin's TTL.
const unpinTimeout = time.Second

// leave ends the tenure cleanly: it handles what was delivered and
// checkpoints, within the drain timeout, and unpins the partition, within
// unpinTimeout, so that the next instance takes it at once, with nothing
// to replay.
func (t *tenure) leave(pl *pull, batch []jetstream.Msg, why string) error {
	ctx, cancel := context.WithTimeout(context.Background(), t.p.r.cfg.DrainTimeout)
	defer cancel()
	err := t.drain(ctx, pl, batch)
	pl.close()
	uctx, ucancel := context.WithTimeout(context.Background(), unpinTimeout)
	defer ucancel()
	err = errors.Join(err, t.unpin(uctx))
	t.p.log.Info("partition left", "why", why, "handled", t.handled, "err", err)
	return err
}

// drain stops pulling, handles what was delivered, and checkpoints.
func (t *tenure) drain(ctx context.Context, pl *pull, batch []jetstream.Msg) error {
	pl.cc.Drain()
	for {
		select {
		case m := <-pl.msgs:
			if how, _, err := t.process(ctx, pl, fill(append(batch[:0], m), pl.msgs)); how != endNone || err != nil {
				return err
			}
		case <-pl.closed:
			for len(pl.msgs) > 0 {
				if how, _, err := t.process(ctx, pl, fill(batch[:0], pl.msgs)); how != endNone || err != nil {
					return err
				}
			}
			if err := t.cp.now(ctx, t.handled, t.cons); err != nil {
				return err
			}
			return t.pipe.ackNow()
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// unpin unpins the partition if the server still has it pinned to this
// tenure.
func (t *tenure) unpin(ctx context.Context) error {
	if t.pin == "" {
		return nil
	}
	info, err := t.p.cons.Info(ctx)
	if err != nil {
		return err
	}
	for _, g := range info.PriorityGroups {
		if g.PinnedClientID == t.pin {
			return t.p.r.events.UnpinConsumer(ctx, info.Name, g.Group)
		}
	}
	return nil
}

// pullEnded ends the tenure whose pull nats.go ended: the consumer was
// deleted. It checkpoints what it handled and re-creates the consumer to
// deliver from the next event.
func (t *tenure) pullEnded(ctx context.Context, pl *pull) (ending, []jetstream.Msg, error) {
	pl.close()
	if ctx.Err() != nil {
		return endStopped, nil, nil
	}
	p := t.p
	dctx, cancel := context.WithTimeout(ctx, p.r.cfg.DrainTimeout)
	defer cancel()
	if err := t.cp.now(dctx, t.handled, t.cons); err != nil {
		return endFailed, nil, err
	}
	cons, err := p.r.assets.consumer(ctx, p.id, t.handled+1, false)
	if err != nil {
		return endFailed, nil, err
	}
	p.cons = cons
	return endPullEnded, nil, errConsumerGone
}

// stoppedTimer returns a timer that does not fire until it is reset.
func stoppedTimer() *time.Timer {
	tm := time.NewTimer(time.Hour)
	tm.Stop()
	return tm
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
