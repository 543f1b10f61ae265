package bench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/internal/runner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Default tuning of the baseline: the best of the windows (256, 512, 1024)
// and pull batches (64 to 512) tried on the development machine.
const (
	DefaultBaseWindow = 512
	DefaultBaseBatch  = 256
)

// errNotPending is a publish acknowledgement for no answer the baseline
// waits for.
var errNotPending = errors.New("bench: a publish acknowledgement for no pending answer")

// answerExactly is the baseline: the simplest consumer with
// guard-consumer's delivery guarantees that goes as fast as it can.
//
//   - Order: the partition's events are answered one at a time, in stream
//     order, by one consumer.
//   - One stored answer per event: each answer is published with the
//     event's stream sequence as its Nats-Msg-Id, so a redelivered event's
//     answer is dropped as a duplicate.
//   - Ack after store: an event is acked (AckAll) only once its answer and
//     every earlier one are stored.
//
// Work in flight is bounded by events, not batches: the consumer delivers
// at most window events not yet acked (MaxAckPending), and pulls them in
// batches. Answers are published as core messages with a reply subject,
// as nats.go's asynchronous publish does but without its futures. The
// acknowledgements queue on a channel subscription, which wakes no one,
// are matched to the answers by the reply subject's last token and
// checked for an error without being decoded. They are read as the
// runner reads its own: before each answer is published, and, once the
// oldest answer has waited runner.AckDelay or window/8 events wait, as
// they arrive. The newest event whose answer and every earlier one are
// stored is acked every window/8 such events or once the first of them
// has waited runner.AckDelay, as the runner acks, so acks are coalesced
// at any load.
func answerExactly(ctx context.Context, nc *nats.Conn, cons jetstream.Consumer, subject string, window, batch int) error {
	q := &exactQueue{ctx: ctx, inbox: nats.NewInbox() + ".", ackEvery: max(window/8, 1), failed: make(failure, 1),
		acks: make(chan *nats.Msg, 2*window),
		out:  nats.Msg{Subject: subject, Header: nats.Header{jetstream.MsgIDHeader: []string{""}}}}
	q.due = time.AfterFunc(time.Hour, q.ackDue)
	q.due.Stop()
	defer q.due.Stop()
	sub, err := nc.ChanSubscribe(q.inbox+"*", q.acks)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	return consume(ctx, cons, batch, func(m jetstream.Msg) error { return q.publish(nc, m) }, q.failed)
}

// exactQueue is a partition's answers awaiting storage, in order.
type exactQueue struct {
	ctx      context.Context
	inbox    string // the acknowledgements' subject, but for the last token
	ackEvery int
	failed   failure
	acks     chan *nats.Msg // acknowledgements arrived and not read yet: at most the window
	out      nats.Msg       // the answer being published, reused
	id       []byte

	mu      sync.Mutex
	pending []exactAnswer // a ring: head, then n answers
	head, n int
	first   uint64 // the token of the answer at head
	next    uint64 // the token of the next answer
	unacked jetstream.Msg
	ready   int         // events whose answers are stored since the last ack
	since   time.Time   // when the first of them was answered
	due     *time.Timer // fires when the next ack falls due (arm)
	reading bool        // ackDue reads acknowledgements as they arrive, and arms due after
}

type exactAnswer struct {
	event  jetstream.Msg
	at     time.Time // when it was published
	stored bool
}

// publish reads the acknowledgements that arrived, then queues m's answer
// and publishes it. Consume calls it for one event at a time.
func (q *exactQueue) publish(nc *nats.Conn, m jetstream.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return err
	}
	q.mu.Lock()
	ack := q.read()
	if q.n == len(q.pending) {
		grown := make([]exactAnswer, max(2*q.n, 64))
		for i := range q.n {
			grown[i] = q.pending[(q.head+i)%len(q.pending)]
		}
		q.pending, q.head = grown, 0
	}
	q.pending[(q.head+q.n)%len(q.pending)] = exactAnswer{event: m, at: time.Now()}
	q.n++
	token := q.next
	q.next++
	q.arm()
	q.mu.Unlock()
	q.ack(ack)

	q.id = strconv.AppendUint(append(q.id[:0], "b."...), meta.Sequence.Stream, 10)
	q.out.Header[jetstream.MsgIDHeader][0] = string(q.id)
	q.out.Reply = q.inbox + strconv.FormatUint(token, 10)
	q.out.Data = echo(m.Data())
	return nc.PublishMsg(&q.out)
}

// read records the acknowledgements that arrived and returns the event
// to ack if an ack is due. q.mu is held.
func (q *exactQueue) read() jetstream.Msg {
drain:
	for {
		select {
		case a := <-q.acks:
			q.stored(a)
		default:
			break drain // ackDue may read q.acks too, unlocked: never block here
		}
	}
	var m jetstream.Msg
	if q.unacked != nil && (q.ready >= q.ackEvery || time.Since(q.since) >= runner.AckDelay) {
		m, q.unacked, q.ready = q.unacked, nil, 0
	}
	return m
}

// stored handles a publish acknowledgement: it marks its answer stored,
// and moves the newest event whose answer and every earlier one are
// stored on. q.mu is held.
func (q *exactQueue) stored(ack *nats.Msg) {
	token, err := strconv.ParseUint(ack.Subject[len(q.inbox):], 10, 64)
	if err != nil {
		q.failed.report(fmt.Errorf("%w: %s", errNotPending, ack.Subject))
		return
	}
	if len(ack.Data) == 0 || bytes.Contains(ack.Data, []byte(`"error"`)) {
		q.failed.report(fmt.Errorf("bench: the answer was not stored: %s %q", ack.Header.Get("Status"), ack.Data))
		return
	}
	i := token - q.first
	if token < q.first || i >= uint64(q.n) {
		q.failed.report(fmt.Errorf("%w: %d", errNotPending, token))
		return
	}
	q.pending[(q.head+int(i))%len(q.pending)].stored = true
	for q.n > 0 && q.pending[q.head].stored {
		if q.unacked == nil {
			q.since = q.pending[q.head].at
		}
		q.unacked = q.pending[q.head].event
		q.pending[q.head] = exactAnswer{}
		q.head = (q.head + 1) % len(q.pending)
		q.n--
		q.first++
		q.ready++
	}
}

// arm sets due to fire when the next ack falls due: runner.AckDelay after
// the first event waiting for its ack was answered, or, with none
// waiting, after the oldest answer not yet stored was. q.mu is held.
func (q *exactQueue) arm() {
	var from time.Time
	switch {
	case q.reading:
		return
	case q.unacked != nil:
		from = q.since
	case q.n > 0:
		from = q.pending[q.head].at
	default:
		q.due.Stop()
		return
	}
	q.due.Reset(max(runner.AckDelay-time.Since(from), 0))
}

// wantsAcks reports whether an ack is due as soon as the oldest answer is
// stored: it has waited runner.AckDelay, or enough events wait. q.mu is
// held.
func (q *exactQueue) wantsAcks() bool {
	return q.n > 0 && (q.ready+q.n >= q.ackEvery || time.Since(q.pending[q.head].at) >= runner.AckDelay)
}

// ackDue runs when an ack falls due: it acks what is stored, and, while
// an ack is due on answers not stored yet, reads their acknowledgements
// as they arrive.
func (q *exactQueue) ackDue() {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.reading {
		return
	}
	q.reading = true
	q.ack(q.read())
	for q.wantsAcks() {
		q.mu.Unlock()
		select {
		case a := <-q.acks:
			q.mu.Lock()
			q.stored(a)
		case <-q.ctx.Done():
			q.mu.Lock()
			return
		}
		q.ack(q.read())
	}
	q.reading = false
	q.arm()
}

// ack acks m, if any.
func (q *exactQueue) ack(m jetstream.Msg) {
	if m != nil {
		if err := m.Ack(); err != nil {
			q.failed.report(err)
		}
	}
}
