package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// checkpoint records how far a partition's run snapshots in guard_runs
// reach: every event of the partition up to Seq is reflected in them.
type checkpoint struct {
	Seq uint64    // stream sequence
	rev uint64    // revision of the checkpoint key
	at  time.Time // when it was written or read
}

// checkpointKey is the guard_runs key of partition p's checkpoint. Run keys
// have two tokens (tenant and run); this has three, so none can collide.
func checkpointKey(p int) string { return "_guard.checkpoint.p" + strconv.Itoa(p) }

// checkpointing is a checkpoint being written: first the snapshots of the
// runs changed since the last one, then, once they are stored, the
// checkpoint key.
type checkpointing struct {
	futures
	seq     uint64   // the stream sequence the snapshots reflect
	entries []*entry // the runs whose snapshots are futs[:len(entries)]
	keyed   bool     // the key's publish is the last of futs
}

// maybeCheckpoint starts a checkpoint when one is due: on the interval
// (tick), or when many events have gone unwritten. One is written at a
// time.
func (p *partition) maybeCheckpoint(ctx context.Context, tick bool) error {
	if p.writing != nil || len(p.dirty) == 0 || !tick && p.sinceCP < p.r.cfg.CheckpointEvents {
		return nil
	}
	return p.startCheckpoint(ctx)
}

// startCheckpoint settles the pipeline, so that every event handled has
// its decisions stored, then publishes the snapshot of every run changed
// since the last checkpoint, each with compare-and-set on its revision.
// Handling goes on while they are stored; advanceCheckpoint finishes.
func (p *partition) startCheckpoint(ctx context.Context) error {
	if err := p.settle(ctx, true); err != nil {
		return err
	}
	w := &checkpointing{seq: p.handled}
	for _, e := range p.dirty {
		snap, err := p.r.chain.Encode(e.run)
		if err != nil {
			return err
		}
		msg := nats.NewMsg(kvPrefix + e.key)
		msg.Data = snap
		f, err := p.publishAsync(ctx, msg, jetstream.WithExpectLastSequencePerSubject(e.rev))
		if err != nil {
			return err
		}
		w.futs, w.entries, e.dirty = append(w.futs, f), append(w.entries, e), false
	}
	clear(p.dirty)
	p.dirty, p.sinceCP, p.writing = p.dirty[:0], 0, w
	return p.advanceCheckpoint(ctx, false)
}

// advanceCheckpoint moves the checkpoint being written on, waiting for
// its publishes if block is set: once the snapshots are stored it records
// their revisions, forgets runs that will not change again, and publishes
// the checkpoint key; once that is stored the checkpoint is done.
func (p *partition) advanceCheckpoint(ctx context.Context, block bool) error {
	w := p.writing
	if w == nil {
		return nil
	}
	stored, err := w.poll(ctx, block)
	if err != nil {
		return fenced(err)
	}
	if !stored {
		return nil
	}
	if w.keyed {
		p.cp = checkpoint{Seq: w.seq, rev: w.acks[len(w.acks)-1], at: time.Now()}
		p.writing = nil
		return nil
	}
	for i, e := range w.entries {
		e.rev = w.acks[i]
		if !e.dirty && (e.run.Status == processors.StatusEnded || e.run.Status == processors.StatusStopped) {
			delete(p.cache, e.key)
		}
	}
	msg := nats.NewMsg(kvPrefix + checkpointKey(p.id))
	msg.Data = strconv.AppendUint(nil, w.seq, 10)
	f, err := p.publishAsync(ctx, msg, jetstream.WithExpectLastSequencePerSubject(p.cp.rev))
	if err != nil {
		return err
	}
	w.futs, w.keyed = append(w.futs, f), true
	return p.advanceCheckpoint(ctx, block)
}

// checkpointNow finishes the checkpoint being written and writes one of
// everything changed since, waiting for both.
func (p *partition) checkpointNow(ctx context.Context) error {
	if err := p.advanceCheckpoint(ctx, true); err != nil {
		return err
	}
	if len(p.dirty) == 0 {
		return p.settle(ctx, true)
	}
	if err := p.startCheckpoint(ctx); err != nil {
		return err
	}
	return p.advanceCheckpoint(ctx, true)
}

// fenced marks a compare-and-set failure: another consumer wrote a
// snapshot or the checkpoint, so it owns the partition now.
func fenced(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence {
		return errors.Join(errFenced, err)
	}
	return err
}

// recover rebuilds the partition's state after a start or a failure, so
// that consuming can go on in stream order:
//
//  1. it forgets the cache and reads the checkpoint;
//  2. it re-applies the events between the checkpoint and the consumer's
//     ack floor, publishing nothing: they were acked, so their decisions,
//     dead letters and timers are stored already;
//  3. it handles the events delivered beyond the ack floor but not acked
//     (to a consumer that died, or to this one before it failed), and
//     publishes what they decide: the server drops what was stored already
//     by its Nats-Msg-Id. Those events come back only after the ack wait,
//     after newer ones, so they must be handled here, before consuming;
//     when they come back they are already applied and change nothing.
func (p *partition) recover(ctx context.Context) error {
	clear(p.cache)
	p.dirty, p.inflight, p.timers, p.ended, p.sinceCP, p.writing = p.dirty[:0], p.inflight[:0], p.timers[:0], p.ended[:0], 0, nil
	cp, err := p.readCheckpoint(ctx)
	if err != nil {
		return err
	}
	p.cp, p.handled = cp, cp.Seq
	cons, err := p.r.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p.id))
	if err != nil {
		return err
	}
	info, err := cons.Info(ctx)
	if err != nil {
		return err
	}
	floor, delivered := info.AckFloor.Stream, info.Delivered.Stream
	if floor > p.handled {
		p.log.Info("replaying from the checkpoint", "from", p.handled+1, "to", floor)
		if err := p.replayTo(ctx, p.handled+1, floor, false); err != nil {
			return err
		}
	}
	if delivered > p.handled {
		p.log.Info("redoing events delivered but not acked", "from", p.handled+1, "to", delivered)
		return p.replayTo(ctx, p.handled+1, delivered, true)
	}
	return nil
}

// readCheckpoint reads the partition's checkpoint; a partition never
// checkpointed starts from the beginning of the stream.
func (p *partition) readCheckpoint(ctx context.Context) (checkpoint, error) {
	msg, err := p.r.runs.GetLastMsgForSubject(ctx, kvPrefix+checkpointKey(p.id))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return checkpoint{at: time.Now()}, nil
	case err != nil:
		return checkpoint{}, fmt.Errorf("runner: reading the checkpoint of partition %d: %w", p.id, err)
	}
	seq, err := strconv.ParseUint(string(msg.Data), 10, 64)
	if err != nil {
		return checkpoint{}, fmt.Errorf("runner: the checkpoint of partition %d is unreadable (%q): %w", p.id, msg.Data, err)
	}
	return checkpoint{Seq: seq, rev: msg.Sequence, at: time.Now()}, nil
}

// replayTo handles the partition's events from sequence from to to, read
// from the stream rather than the consumer. With publish unset it
// publishes nothing; with it set it publishes what they decide and waits
// until all is stored. Nothing is acked: the consumer acks these events
// with the first one it delivers after them.
func (p *partition) replayTo(ctx context.Context, from, to uint64, publish bool) error {
	oc, err := p.r.js.OrderedConsumer(ctx, streams.EventStream, jetstream.OrderedConsumerConfig{
		FilterSubjects: []string{streams.PartitionFilter(p.id)},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy,
		OptStartSeq:    from,
	})
	if err != nil {
		return err
	}
	it, err := oc.Messages()
	if err != nil {
		return err
	}
	defer it.Stop()
	p.replay = !publish
	defer func() { p.replay = false }()
	p.cur = p.newPending()
	defer func() { p.cur = nil }()
	for {
		m, err := it.Next()
		if err != nil {
			return err
		}
		meta, err := m.Metadata()
		if err != nil {
			return err
		}
		if meta.Sequence.Stream > to {
			break
		}
		if err := p.handle(ctx, m); err != nil {
			return err
		}
		if meta.Sequence.Stream == to || meta.NumPending == 0 {
			break
		}
	}
	if err := p.publishTimers(ctx); err != nil {
		return err
	}
	_, err = p.cur.poll(ctx, true)
	p.cur.reset()
	return err
}
