package runner

import (
	"context"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// suspectAfter is how long a batch's publishes may wait for the server
// before the partition stops handling more until they are stored. A server
// that stores slowly is waited for either way; one that lost a publish in
// a leader change may store what the partition publishes after it, out of
// the run's order, and this bounds how much (docs/decisions/0008-ownership.md).
const suspectAfter = 250 * time.Millisecond

// AckDelay is how long after an event was handled its coalesced ack is
// sent at the latest, once its effects are stored: far below any ack
// wait, and long enough that, at a few hundred events a second per
// partition, one ack covers dozens.
const AckDelay = 50 * time.Millisecond

// minInflightShare sets the fewest events a partition keeps in flight
// however slowly the server stores: MaxInflight/minInflightShare.
const minInflightShare = 16

// pending is a handled batch whose publishes are not all stored yet.
type pending struct {
	last  jetstream.Msg // acking it acks the batch (AckAll)
	seq   uint64        // the last stream sequence handled when it ended
	n     int           // events in the batch
	start time.Time     // when its first event was taken
	ended time.Time     // when it was handled and its publishes made
	end   uint64        // its publishes are those numbered below end
}

// pipeline is a tenure's batches handled whose publishes the server has
// not all stored yet, oldest first. A batch is settled once they are, in
// order, and acked then or with a later batch (AckAll), so an acked
// event's effects are all stored. At most max events are in flight:
// handling waits for the oldest batch beyond that. A batch's publishes
// are numbered consecutively, after the previous batch's, since a batch
// is handled at once.
//
// Acks are coalesced: the last batch settled is acked once ackEvery
// events wait for their ack, or AckDelay after the first of them was
// handled, well within any ack wait. One ack then covers many batches, at
// any load, which spares the server an ack to process, and the partition
// a write, per event. An event settled and not yet acked when the tenure
// ends is redelivered to the next owner, which redoes it: its publishes
// carry the same Nats-Msg-Ids.
//
// Nor does the partition wake for every acknowledgement of a publish: the
// timer due fires when the next ack falls due, and only once one is due,
// or enough events wait, does the partition settle batches as their
// acknowledgements arrive (wantsAcks).
//
// How many events may be in flight follows how fast the server stores
// (adapt): a server that fsyncs every write works through all the
// partitions' publishes in one queue, and at MaxInflight events each that
// queue can hold more than the publish timeout's worth, which would fail
// a partition whose oldest publish waits behind it. So a batch that waited
// longer than budget to be stored halves the limit, and one stored within
// a quarter of it lets it grow back by its events, up to max: the
// partitions together keep about budget's worth queued, and slow storage
// slows them down instead of failing them.
type pipeline struct {
	pub      *publisher
	max      int             // events in flight at most: Config.MaxInflight
	limit    int             // events in flight at most now: max, or less while the server stores slowly
	budget   time.Duration   // how long a batch may wait to be stored before limit is halved
	cut      time.Time       // when limit was last halved
	resized  func(limit int) // called as limit changes
	log      *slog.Logger
	ackEvery int              // settled events that are acked without waiting for the pipeline to empty
	done     func(b *pending) // called as a batch is settled
	inflight []pending        // from head on
	head     int
	events   int           // events in the batches in flight
	start    time.Time     // when the batch being handled began
	unacked  jetstream.Msg // the last event of the last batch settled, if not acked yet
	waiting  int           // events settled and not acked yet
	since    time.Time     // when the first of them was handled
	due      *time.Timer   // fires when the next ack falls due (arm)
	// stored is the stream sequence up to which every event handled has
	// all its effects stored: the last batch settled, or what recovery
	// handled and waited for.
	stored uint64
}

// begin starts a batch.
func (pl *pipeline) begin() { pl.start = time.Now() }

// end closes the batch of n events whose last is last, and queues it to
// be acked; once it is, every event up to stream sequence seq, the last
// the tenure handled, has its effects stored.
func (pl *pipeline) end(last jetstream.Msg, seq uint64, n int) {
	pl.inflight = append(pl.inflight, pending{last: last, seq: seq, n: n, start: pl.start, ended: time.Now(), end: pl.pub.next})
	pl.events += n
	if pl.unacked == nil && len(pl.inflight)-pl.head == 1 {
		pl.arm() // the oldest batch waiting for an ack: its ack falls due first
	}
}

// settle settles the batches whose publishes are all stored, in order,
// and acks them as the pipeline's doc says. With block set, while more
// than max events are in flight, or once the oldest batch has waited
// suspectAfter, it waits for them; otherwise it stops at the first batch
// still waiting. A failed publish fails the tenure: nothing after it is
// acked.
func (pl *pipeline) settle(ctx context.Context, block bool) error {
	for pl.head < len(pl.inflight) {
		b := &pl.inflight[pl.head]
		ok, err := pl.pub.done(b.end)
		if err != nil {
			return err
		}
		if !ok {
			if !block && pl.events <= pl.limit && time.Since(b.ended) < suspectAfter {
				return pl.ack()
			}
			if err := pl.pub.wait(ctx); err != nil {
				return err
			}
			continue
		}
		pl.done(b)
		pl.adapt(time.Since(b.ended), b.n)
		pl.events -= b.n
		pl.stored = b.seq
		if pl.unacked == nil {
			pl.since = b.ended
		}
		pl.unacked, pl.waiting = b.last, pl.waiting+b.n
		pl.pop()
	}
	return pl.ack()
}

// adapt sizes the work in flight to how fast the server stores, given that
// a batch of n events took waited to be stored: see the pipeline's doc.
// limit is halved at most once per budget, since the batches queued with
// the one that waited long settle about as late, and a cut takes effect
// only as they do.
func (pl *pipeline) adapt(waited time.Duration, n int) {
	was := pl.limit
	switch {
	case waited > pl.budget:
		if time.Since(pl.cut) > pl.budget {
			if pl.limit == pl.max {
				pl.log.Info("the server stores slowly; keeping fewer events in flight", "waited", waited, "budget", pl.budget)
			}
			pl.limit = max(pl.limit/2, pl.max/minInflightShare, 1)
			pl.cut = time.Now()
		}
	case waited < pl.budget/4 && pl.limit < pl.max:
		if pl.limit = min(pl.limit+n, pl.max); pl.limit == pl.max {
			pl.log.Info("the server stores quickly again; events in flight back to the most", "limit", pl.max)
		}
	}
	if pl.limit != was {
		pl.resized(pl.limit)
	}
}

// ack acks the last batch settled once ackEvery events wait for it, or
// AckDelay after the first of them was handled, and arms due for the next
// ack to fall due.
func (pl *pipeline) ack() error {
	var err error
	if pl.unacked != nil && (pl.waiting >= pl.ackEvery || time.Since(pl.since) >= AckDelay) {
		err = pl.ackNow()
	}
	pl.arm()
	return err
}

// ackNow acks the last batch settled, if it is not acked yet.
func (pl *pipeline) ackNow() error {
	if pl.unacked == nil {
		return nil
	}
	m := pl.unacked
	pl.unacked, pl.waiting = nil, 0
	return m.Ack()
}

// arm sets due to fire when the next ack falls due: AckDelay after the
// first event waiting for its ack was handled, or, with none waiting,
// after the oldest batch in flight was. A batch in flight that is due
// already is acked as its acknowledgements arrive (wantsAcks).
func (pl *pipeline) arm() {
	var from time.Time
	switch {
	case pl.unacked != nil:
		from = pl.since
	case !pl.idle():
		from = pl.inflight[pl.head].ended
	default:
		pl.due.Stop()
		return
	}
	if d := AckDelay - time.Since(from); d > 0 {
		pl.due.Reset(d)
	}
}

// wantsAcks reports whether the pipeline has a batch in flight that is to
// be acked as soon as it is settled: its ack is due, or enough events
// wait. Only then need the partition settle as acknowledgements arrive.
func (pl *pipeline) wantsAcks() bool {
	return !pl.idle() && (pl.waiting+pl.events >= pl.ackEvery || time.Since(pl.inflight[pl.head].ended) >= AckDelay)
}

// pop drops the oldest batch, reusing the queue's array.
func (pl *pipeline) pop() {
	pl.inflight[pl.head] = pending{}
	pl.head++
	switch {
	case pl.head == len(pl.inflight):
		pl.inflight, pl.head = pl.inflight[:0], 0
	case pl.head >= 64 && pl.head >= len(pl.inflight)/2:
		n := copy(pl.inflight, pl.inflight[pl.head:])
		pl.inflight, pl.head = pl.inflight[:n], 0
	}
}

// idle reports whether no batch is in flight.
func (pl *pipeline) idle() bool { return pl.head == len(pl.inflight) }
