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

// maybeCheckpoint writes a checkpoint when one is due: on the interval
// (tick), or when many events have gone unwritten.
func (p *partition) maybeCheckpoint(ctx context.Context, tick bool) error {
	if len(p.dirty) == 0 || !tick && p.sinceCP < p.r.cfg.CheckpointEvents {
		return nil
	}
	return p.checkpointNow(ctx)
}

// checkpointNow settles the pipeline, so that every event handled has its
// decisions stored, then writes the snapshot of every run changed since
// the last checkpoint, each with compare-and-set on its revision, and
// finally the checkpoint itself. Runs that will not change again leave the
// cache.
func (p *partition) checkpointNow(ctx context.Context) error {
	if err := p.settle(ctx, true); err != nil {
		return err
	}
	futs := p.futsBusy[:0]
	for _, e := range p.dirty {
		snap, err := p.r.chain.Encode(e.run)
		if err != nil {
			return err
		}
		msg := nats.NewMsg(kvPrefix + e.key)
		msg.Data = snap
		f, err := p.r.js.PublishMsgAsync(msg, jetstream.WithExpectLastSequencePerSubject(e.rev))
		if err != nil {
			return err
		}
		futs = append(futs, f)
	}
	msg := nats.NewMsg(kvPrefix + checkpointKey(p.id))
	msg.Data = strconv.AppendUint(nil, p.handled, 10)
	acks, err := await(ctx, futs)
	p.futsBusy = futs[:0]
	if err != nil {
		return fenced(err)
	}
	for i, e := range p.dirty {
		e.rev, e.dirty = acks[i], false
		if e.run.Status == processors.StatusEnded || e.run.Status == processors.StatusStopped {
			delete(p.cache, e.key)
		}
	}
	clear(p.dirty)
	p.dirty = p.dirty[:0]
	f, err := p.r.js.PublishMsgAsync(msg, jetstream.WithExpectLastSequencePerSubject(p.cp.rev))
	if err != nil {
		return err
	}
	acks, err = await(ctx, []jetstream.PubAckFuture{f})
	if err != nil {
		return fenced(err)
	}
	p.cp = checkpoint{Seq: p.handled, rev: acks[0], at: time.Now()}
	p.sinceCP = 0
	return nil
}

// await waits for futs and returns the stream sequence each was stored at.
func await(ctx context.Context, futs []jetstream.PubAckFuture) ([]uint64, error) {
	seqs := make([]uint64, len(futs))
	for i, f := range futs {
		select {
		case ack := <-f.Ok():
			seqs[i] = ack.Sequence
		case err := <-f.Err():
			return nil, errors.Join(errPublish, err)
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return seqs, nil
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

// recover rebuilds the partition's state after a start or a failure: it
// forgets the cache, reads the checkpoint, and re-applies the events
// between it and the consumer's ack floor. Those events were acked, so
// their decisions, dead letters and timers are stored already: the replay
// publishes nothing. It only rebuilds what the snapshots miss.
func (p *partition) recover(ctx context.Context) error {
	clear(p.cache)
	p.dirty, p.inflight, p.timers, p.ended, p.sinceCP = p.dirty[:0], p.inflight[:0], p.timers[:0], p.ended[:0], 0
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
	floor := info.AckFloor.Stream
	if floor <= cp.Seq {
		return nil
	}
	p.log.Info("replaying from the checkpoint", "from", cp.Seq+1, "to", floor)
	return p.replayTo(ctx, cp.Seq+1, floor)
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

// replayTo re-applies the partition's events from sequence from to to,
// publishing nothing.
func (p *partition) replayTo(ctx context.Context, from, to uint64) error {
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
	p.replay = true
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
			return nil
		}
		if err := p.handle(ctx, m); err != nil {
			return err
		}
		if meta.Sequence.Stream == to || meta.NumPending == 0 {
			return nil
		}
	}
}
