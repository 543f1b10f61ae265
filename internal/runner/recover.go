package runner

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// staleWait is how long replay waits before asking again when the replica
// that answered had fewer of the partition's events than the leader has.
const staleWait = 20 * time.Millisecond

// maxScan bounds the messages of one read of replay.
const maxScan = 4096

// recover rebuilds the partition's state at the start of a tenure, so that
// consuming can go on in stream order:
//
//  1. it writes the partition's owner key, which every later read of run
//     state checks (runs.fence), and reads the checkpoint (the cache is
//     empty: the tenure is new);
//  2. it replays the events between the checkpoint and the consumer's ack
//     floor into the replay sink: they were acked, so their decisions,
//     dead letters and timers are stored already;
//  3. it handles the events delivered beyond the ack floor but not acked
//     (to an instance that died or lost the partition, or to this one in
//     an earlier tenure) with the live sink, and waits until what they
//     decide is stored: the server drops what was stored already by its
//     Nats-Msg-Id. Those events come back only after the ack wait, after
//     newer ones, so they must be handled here, before consuming; when
//     they come back they are below the handled mark and change nothing.
//     If first, the tenure's first event, is delivered for the first time,
//     every event delivered before the tenure is below it, and those from
//     it on are left to be consumed.
//
// Events that are gone from the stream are reported as a gap and skipped:
// recovery never waits for an event that does not exist.
func (t *tenure) recover(ctx context.Context, first *record) error {
	p := t.p
	if err := t.claim(ctx); err != nil {
		return err
	}
	ckpt := streams.RunsSubject(streams.CheckpointKey(p.id))
	got, err := t.runs.fresh(ctx, []string{ckpt, t.runs.fence.subject})
	if err != nil {
		return err
	}
	var stored *record
	for i := range got {
		if got[i].subject == ckpt {
			stored = &got[i]
		}
	}
	cp, err := parseCheckpoint(p.id, stored)
	if err != nil {
		return err
	}
	if stored != nil {
		p.r.obs.Checkpointed(p.id, stored.at)
	}
	t.cp.cp, t.handled = cp, cp.Seq
	info, err := p.cons.Info(ctx)
	if err != nil {
		return err
	}
	floor, delivered := info.AckFloor.Stream, info.Delivered.Stream
	// How many deliveries each range had, if the consumer says: an event
	// of the partition that is gone shows as a delivery with no event.
	acked, sent := info.AckFloor.Consumer, info.Delivered.Consumer
	var stop uint64 // where consuming takes over; 0: after delivered
	if first.delivered == 1 {
		stop, sent = first.seq, first.cseq-1
		// No one handled first or anything after it. The ack floor may
		// still be past it: under AckAll, the server acks a pending event
		// that the stream's limits remove, and with it every event
		// before (docs/decisions/0023-stream-limits.md).
		floor, acked = min(floor, stop-1), min(acked, sent)
	}
	if floor > t.handled {
		p.log.Info("replaying from the checkpoint", "from", t.handled+1, "to", floor)
		if err := t.replay(ctx, t.handled+1, floor, 0, deliveries(cp.Cons, cp.Seq == 0 || cp.Cons > 0, acked), replay{}); err != nil {
			return err
		}
	}
	t.cons = acked
	if delivered > t.handled && (stop == 0 || stop > t.handled+1) {
		p.log.Info("redoing events delivered but not acked", "from", t.handled+1, "to", delivered, "consumed_from", stop)
		if err := t.replay(ctx, t.handled+1, delivered, stop, deliveries(acked, true, sent), t.sink); err != nil {
			return err
		}
		t.cons = sent
	}
	if err := t.pub.waitDone(ctx, t.pub.next); err != nil {
		return err
	}
	t.pipe.stored = t.handled
	return nil
}

// claim writes the partition's owner key and makes what it was stored at
// the fence of every read of run state in this tenure.
func (t *tenure) claim(ctx context.Context) error {
	msg := nats.NewMsg(streams.RunsSubject(streams.OwnerKey(t.p.id)))
	msg.Data = []byte(t.p.r.instance + " " + t.pin)
	id, err := t.pub.publish(ctx, msg)
	if err != nil {
		return err
	}
	if err := t.pub.waitDone(ctx, id+1); err != nil {
		return fmt.Errorf("runner: writing the owner key of partition %d: %w", t.p.id, err)
	}
	rev, err := t.pub.result(id)
	if err != nil {
		return err
	}
	t.runs.fence = fence{subject: msg.Subject, rev: rev}
	return nil
}

// deliveries returns how many deliveries the consumer made between its
// sequences from (excluded) and to, or -1 if that cannot be known: from
// is not known, or the consumer was re-created since.
func deliveries(from uint64, known bool, to uint64) int64 {
	if !known || from > to {
		return -1
	}
	return int64(to - from)
}

// replay handles the partition's events from stream sequence from to to,
// read back from the stream rather than the consumer, into s; with stop
// set, it leaves the events from stop on to be consumed. Nothing is
// acked: the consumer acks these events with the first one it delivers
// after them.
//
// If the stream no longer holds some of the sequences in the range
// (lost), and the partition found fewer events than the consumer made
// deliveries in the range (sent, -1 if unknown), they are reported as a
// gap. A delivery repeated after an ack wait counts twice, so a gap may be
// reported that lost none of the partition's events; one whose
// sequences were all another partition's is not.
func (t *tenure) replay(ctx context.Context, from, to, stop uint64, sent int64, s sink) error {
	p := t.p
	if stop > 0 {
		to = min(to, stop-1)
	}
	if from > to {
		return nil
	}
	info, err := p.r.events.Info(ctx)
	if err != nil {
		return err
	}
	start := max(from, info.State.FirstSeq) // what is before it is gone
	filter := streams.PartitionFilter(p.id)
	prefix := strings.TrimSuffix(filter, ">")
	// Replay reads every partition's events and keeps its own (reader.scan).
	batch := min(p.r.cfg.Batch*p.r.cfg.Partitions, maxScan)
	last := start - 1 // the last sequence covered
	var recs []record
	var found int64
	for stale := 0; last < to; {
		var scanned, more uint64
		recs, scanned, more, err = p.events.scan(ctx, last+1, prefix, int(min(to-last, uint64(batch))), recs[:0])
		if err != nil {
			return err
		}
		n, err := t.replayBatch(ctx, recs, to, s)
		if err != nil {
			return err
		}
		found += int64(n)
		if scanned > last {
			last, stale = scanned, 0
		}
		if last >= to || more > 0 {
			continue
		}
		// The replica that answered has no more: ask the leader.
		next, _, err := p.events.leaderGet(ctx, last+1, filter)
		if err != nil {
			return err
		}
		if next == 0 || next > to {
			break
		}
		if stale++; stale > staleRetries {
			return fmt.Errorf("runner: every replica of %s answering is behind its leader at sequence %d", streams.EventStream, next)
		}
		select { // the replica is behind the leader: ask again
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(staleWait):
		}
	}
	t.handled = max(t.handled, to)
	if sent >= 0 && found >= sent {
		return nil // every delivery is accounted for
	}
	gone, err := t.lost(ctx, from, to)
	if err != nil || gone.count == 0 {
		return err
	}
	return t.gap(ctx, gone)
}

// gap is a range of stream sequences the stream no longer holds.
type gap struct {
	first, last uint64 // the first and last sequence gone
	count       uint64 // how many in between are gone; 0 if none
}

// maxDeletedDetails bounds the deleted sequences lost asks the stream
// for; past it, the whole range may be gone.
const maxDeletedDetails = 100_000

// lost returns what the stream no longer holds from sequence from to to:
// what expired or was purged before its first sequence, and what was
// deleted after. The stream does not say which partition a sequence gone
// belonged to, so what is reported may be another partition's: a gap is a
// warning that the partition's runs may not reflect events, not a count of
// them.
func (t *tenure) lost(ctx context.Context, from, to uint64) (g gap, err error) {
	info, err := t.p.r.events.Info(ctx)
	if err != nil {
		return gap{}, err
	}
	st := info.State
	add := func(lo, hi uint64) {
		if g.count == 0 || lo < g.first {
			g.first = lo
		}
		g.last, g.count = max(g.last, hi), g.count+hi-lo+1
	}
	if st.FirstSeq > from {
		add(from, min(to, st.FirstSeq-1))
	}
	switch {
	case st.NumDeleted == 0 || st.FirstSeq > to:
	case st.NumDeleted > maxDeletedDetails:
		add(max(from, st.FirstSeq), to)
	default:
		if info, err = t.p.r.events.Info(ctx, jetstream.WithDeletedDetails(true)); err != nil {
			return gap{}, err
		}
		for _, d := range info.State.Deleted {
			if d >= from && d <= to {
				add(d, d)
			}
		}
	}
	return g, nil
}

// replayBatch handles the records of recs up to stream sequence to, and
// returns how many that was.
func (t *tenure) replayBatch(ctx context.Context, recs []record, to uint64, s sink) (int, error) {
	n := 0
	for n < len(recs) && recs[n].seq <= to {
		n++
	}
	return n, t.handleRecords(ctx, recs[:n], s)
}

// gap reports that the stream no longer holds what g says, in the log, to
// the Observer and as a dead letter of reason gap, and goes on past it.
func (t *tenure) gap(ctx context.Context, g gap) error {
	p := t.p
	p.log.Warn("events may be gone from the stream; recovering without them", "stream", streams.EventStream,
		"first", g.first, "last", g.last, "sequences_gone", g.count)
	p.r.obs.Gap(p.id, g.first, g.last)
	p.r.obs.DeadLettered(streams.DeadGap)
	if err := t.live.gap(ctx, p.id, g); err != nil {
		return fmt.Errorf("runner: reporting the gap %d-%d: %w", g.first, g.last, err)
	}
	return nil
}
