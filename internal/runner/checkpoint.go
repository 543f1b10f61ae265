package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// checkpointSlice is how many snapshots a checkpoint takes, or publishes,
// between two batches: a checkpoint is spread over the batches that follow
// it instead of holding one up. At most checkpointInflight of its
// snapshots wait for the server at a time: with an fsync per write, a
// checkpoint of thousands of runs published at once would keep every
// decision behind it waiting for seconds.
const (
	checkpointSlice    = 64
	checkpointInflight = 4 * checkpointSlice
)

// checkpoint records how far a partition's run snapshots in guard_runs
// reach: every event of the partition up to Seq is reflected in them. Its
// value is "<Seq> <Cons>".
type checkpoint struct {
	Seq uint64 // stream sequence
	// Cons is the consumer's sequence of the last delivery up to Seq, if
	// known (0 otherwise): the deliveries since tell recovery how many
	// events it must find (tenure.lost).
	Cons uint64
	rev  uint64    // revision of the checkpoint key
	at   time.Time // when it was written or read
}

// readCheckpoint reads partition p's checkpoint from rd's leader: a
// missing consumer is created to deliver from after it, and one created
// from a later checkpoint than the real one would skip events for good.
func readCheckpoint(ctx context.Context, rd *reader, p int) (checkpoint, error) {
	m, err := rd.leaderLast(ctx, streams.RunsSubject(streams.CheckpointKey(p)))
	if err != nil {
		return checkpoint{}, fmt.Errorf("runner: reading the checkpoint of partition %d: %w", p, err)
	}
	return parseCheckpoint(p, m)
}

// parseCheckpoint reads the checkpoint stored in m; nil means none.
func parseCheckpoint(p int, m *record) (checkpoint, error) {
	if m == nil {
		return checkpoint{at: time.Now()}, nil
	}
	seqText, consText, _ := strings.Cut(string(m.data), " ")
	seq, err := strconv.ParseUint(seqText, 10, 64)
	if err != nil {
		return checkpoint{}, fmt.Errorf("runner: the checkpoint of partition %d is unreadable (%q): %w", p, m.data, err)
	}
	cons, _ := strconv.ParseUint(consText, 10, 64) // absent before guardstream recorded it
	return checkpoint{Seq: seq, Cons: cons, rev: m.seq, at: time.Now()}, nil
}

// checkpointing is a checkpoint being written. It goes through three
// steps, none of which holds up the batches handled meanwhile:
//
//  1. taking the snapshots of the runs changed since the last checkpoint
//     began, as they were when this one began (at seq): a slice between
//     two batches, and any run an event is about to change first
//     (runs.prepare);
//  2. once every event up to seq has its effects stored, publishing the
//     snapshots, a slice between two batches, each with compare-and-set on
//     the run's revision: a snapshot is never stored before the decisions
//     of the events it reflects, so a restart that finds it redoes nothing
//     it should not skip;
//  3. once they are stored, publishing the checkpoint key, with
//     compare-and-set on its revision; unless a snapshot could not be
//     taken (partial): that run's stored snapshot is older than seq, and
//     a restart from a checkpoint at seq would skip its events since. The
//     key stays where it was, and the run is left for the next checkpoint.
//
// A compare-and-set that fails means another instance wrote: the tenure
// is over (errFenced).
type checkpointing struct {
	seq     uint64   // the stream sequence the snapshots reflect
	cons    uint64   // the consumer sequence of the last delivery up to seq, or 0
	entries []*entry // the runs changed up to seq
	snaps   [][]byte // their snapshots, as of seq; nil until taken, or if it could not be
	taken   int      // snapshots taken
	partial bool     // a snapshot could not be taken: the checkpoint key is not written
	next    int      // entries[:next] considered for taking or publishing
	sent    int      // entries[:sent] published, or skipped
	ids     []uint64 // the publish of each snapshot sent, 0 if skipped
	stored  int      // entries[:stored] have their snapshot stored, or skipped
	key     uint64   // the publish of the checkpoint key, 0 until sent
}

// take takes e's snapshot now, which must be due.
func (w *checkpointing) take(rs *runs, e *entry) error {
	i := e.capture - 1
	e.capture = 0
	w.taken++
	snap, err := rs.chain.encode(e.run)
	if err != nil {
		// The run keeps its last snapshot, and the checkpoint its last
		// sequence, so that a restart replays the run's events since onto
		// that snapshot; the next checkpoint tries the run again.
		rs.log.Error("cannot write a run's snapshot; it keeps its last one, and the checkpoint stays where it was",
			"run", e.key, "err", err)
		w.partial = true
		rs.mark(e)
		return nil
	}
	w.snaps[i] = snap
	return nil
}

// checkpointer writes a tenure's checkpoints, one at a time.
type checkpointer struct {
	id      int // the partition
	every   int // events between two checkpoints at most
	runs    *runs
	pipe    *pipeline
	done    func(checkpoint)
	cp      checkpoint     // the last checkpoint written or read
	writing *checkpointing // the checkpoint being written, if any
	next    chan struct{}  // signalled when the next slice can go at once
}

// maybe begins a checkpoint of everything handled up to seq, whose last
// delivery had consumer sequence cons, when one is due: on the interval
// (tick), or when many events have gone unwritten.
func (c *checkpointer) maybe(seq, cons uint64, tick bool) {
	if c.writing != nil || len(c.runs.dirty) == 0 || !tick && c.runs.since < c.every {
		return
	}
	c.begin(seq, cons)
}

// begin begins a checkpoint of every run changed up to seq.
func (c *checkpointer) begin(seq, cons uint64) {
	rs := c.runs
	w := &checkpointing{seq: seq, cons: cons, entries: rs.dirty, snaps: make([][]byte, len(rs.dirty)), ids: make([]uint64, 0, len(rs.dirty))}
	for i, e := range w.entries {
		e.dirty, e.capture = false, i+1
	}
	rs.dirty, rs.since, rs.writing, c.writing = nil, 0, w, w
}

// advance moves the checkpoint being written on by a slice, or all the way
// with block set, waiting for its publishes then. A slice that moved, and
// may be followed by another without waiting for the server, signals
// next, so that the tenure comes back to it between batches, or at once
// when it has none.
func (c *checkpointer) advance(ctx context.Context, block bool) error {
	for w := c.writing; w != nil; w = c.writing {
		moved, err := c.step(ctx, w, block)
		if err != nil {
			return err
		}
		if !block {
			if moved && c.writing != nil {
				select {
				case c.next <- struct{}{}:
				default:
				}
			}
			return nil
		}
		if !moved {
			if err := c.pipe.pub.wait(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// step takes the next step of w, a slice at most unless block is set, and
// reports whether it moved.
func (c *checkpointer) step(ctx context.Context, w *checkpointing, block bool) (bool, error) {
	slice := checkpointSlice
	if block {
		slice = ringSize / 4 // and harvest between: results outlive a quarter ring
	}
	rs := c.runs
	if err := c.harvest(w); err != nil {
		return false, err
	}
	switch {
	case w.taken < len(w.entries):
		for n := 0; n < slice && w.next < len(w.entries); w.next++ {
			if e := w.entries[w.next]; e.capture != 0 {
				if err := w.take(rs, e); err != nil {
					return false, err
				}
				n++
			}
		}
		return true, nil
	case c.pipe.stored < w.seq:
		if !block {
			return false, nil // the events' decisions first
		}
		if c.pipe.idle() {
			return false, fmt.Errorf("runner: partition %d: checkpoint at sequence %d, but events are stored up to %d only and none are in flight", c.id, w.seq, c.pipe.stored)
		}
		return true, c.pipe.settle(ctx, true)
	case w.sent < len(w.entries):
		if !block && w.sent-w.stored >= checkpointInflight {
			return false, nil // the server stores the ones sent first
		}
		for end := min(w.sent+slice, len(w.entries)); w.sent < end; w.sent++ {
			id, err := c.publishSnapshot(ctx, w.entries[w.sent], w.snaps[w.sent])
			if err != nil {
				return false, err
			}
			w.ids = append(w.ids, id)
			w.snaps[w.sent] = nil
		}
		return true, nil
	case w.stored < len(w.entries):
		return false, nil // the snapshots stored first
	case w.partial:
		c.writing, rs.writing = nil, nil
		return true, nil
	case w.key == 0:
		msg := nats.NewMsg(streams.RunsSubject(streams.CheckpointKey(c.id)))
		msg.Data = strconv.AppendUint(append(strconv.AppendUint(nil, w.seq, 10), ' '), w.cons, 10)
		msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(c.cp.rev, 10))
		id, err := c.pipe.pub.publish(ctx, msg)
		w.key = id
		return true, err
	}
	if ok, err := c.pipe.pub.done(w.key + 1); !ok || err != nil {
		return false, err
	}
	rev, err := c.pipe.pub.result(w.key)
	if err != nil {
		return false, err
	}
	c.cp = checkpoint{Seq: w.seq, Cons: w.cons, rev: rev, at: time.Now()}
	c.writing, rs.writing = nil, nil
	c.done(c.cp)
	return true, nil
}

// harvest records the revision of each snapshot of w the server stored,
// in order, as soon as it is: a publish's result is kept only until some
// thousands of publishes later.
func (c *checkpointer) harvest(w *checkpointing) error {
	for ; w.stored < len(w.ids); w.stored++ {
		id := w.ids[w.stored]
		if id == 0 {
			continue // not taken: the run keeps its last snapshot
		}
		if ok, err := c.pipe.pub.done(id + 1); !ok || err != nil {
			return err
		}
		rev, err := c.pipe.pub.result(id)
		if err != nil {
			return err
		}
		c.runs.written(w.entries[w.stored], rev)
	}
	return nil
}

// publishSnapshot publishes snap as e's snapshot, with compare-and-set on
// e's revision, and returns the publish; a snapshot that could not be
// taken is skipped (0).
func (c *checkpointer) publishSnapshot(ctx context.Context, e *entry, snap []byte) (uint64, error) {
	if snap == nil {
		return 0, nil
	}
	msg := nats.NewMsg(streams.RunsSubject(e.key))
	msg.Data = snap
	msg.Header.Set(jetstream.ExpectedLastSubjSeqHeader, strconv.FormatUint(e.rev, 10))
	return c.pipe.pub.publish(ctx, msg)
}

// now finishes the checkpoint being written, then writes one of everything
// handled up to seq, waiting for both.
func (c *checkpointer) now(ctx context.Context, seq, cons uint64) error {
	if err := c.advance(ctx, true); err != nil {
		return err
	}
	if err := c.pipe.settle(ctx, true); err != nil {
		return err
	}
	if len(c.runs.dirty) == 0 {
		return nil
	}
	c.begin(seq, cons)
	return c.advance(ctx, true)
}

// fenced marks a compare-and-set failure: another instance wrote a
// snapshot or the checkpoint, so it owns the partition now. A replicated
// stream reports it with a code of its own.
func fenced(err error) error {
	var apiErr *jetstream.APIError
	if errors.As(err, &apiErr) && (apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequence ||
		apiErr.ErrorCode == jetstream.JSErrCodeStreamWrongLastSequenceConstant) {
		return errors.Join(errFenced, err)
	}
	return err
}
