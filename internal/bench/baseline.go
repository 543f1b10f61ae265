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
// as nats.go's asynchronous publish does but without its futures: the
// acknowledgements arrive on one subscription, are matched to the answers
// by the reply subject's last token and checked for an error without
// being decoded. The newest event whose answer and every earlier one are
// stored is acked every window/8 such events or once the first of them has
// waited runner.AckDelay, as the runner acks, so acks are coalesced at any load.
func answerExactly(ctx context.Context, nc *nats.Conn, cons jetstream.Consumer, subject string, window, batch int) error {
	q := &exactQueue{inbox: nats.NewInbox() + ".", ackEvery: max(window/8, 1), failed: make(failure, 1),
		out: nats.Msg{Subject: subject, Header: nats.Header{jetstream.MsgIDHeader: []string{""}}}}
	q.due = time.AfterFunc(time.Hour, q.ackDue)
	q.due.Stop()
	defer q.due.Stop()
	sub, err := nc.Subscribe(q.inbox+"*", q.stored)
	if err != nil {
		return err
	}
	defer sub.Unsubscribe()
	return consume(ctx, cons, batch, func(m jetstream.Msg) error { return q.publish(nc, m) }, q.failed)
}

// exactQueue is a partition's answers awaiting storage, in order.
type exactQueue struct {
	inbox    string // the acknowledgements' subject, but for the last token
	ackEvery int
	failed   failure
	out      nats.Msg // the answer being published, reused
	id       []byte

	mu      sync.Mutex
	pending []exactAnswer // a ring: head, then n answers
	head, n int
	first   uint64 // the token of the answer at head
	next    uint64 // the token of the next answer
	unacked jetstream.Msg
	ready   int         // events whose answers are stored since the last ack
	due     *time.Timer // acks them once the first has waited runner.AckDelay
	armed   bool        // due is set to fire
}

type exactAnswer struct {
	event  jetstream.Msg
	stored bool
}

// publish queues m's answer and publishes it. Consume calls it for one
// event at a time.
func (q *exactQueue) publish(nc *nats.Conn, m jetstream.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return err
	}
	q.mu.Lock()
	if q.n == len(q.pending) {
		grown := make([]exactAnswer, max(2*q.n, 64))
		for i := range q.n {
			grown[i] = q.pending[(q.head+i)%len(q.pending)]
		}
		q.pending, q.head = grown, 0
	}
	q.pending[(q.head+q.n)%len(q.pending)] = exactAnswer{event: m}
	q.n++
	token := q.next
	q.next++
	q.mu.Unlock()

	q.id = strconv.AppendUint(append(q.id[:0], "b."...), meta.Sequence.Stream, 10)
	q.out.Header[jetstream.MsgIDHeader][0] = string(q.id)
	q.out.Reply = q.inbox + strconv.FormatUint(token, 10)
	q.out.Data = echo(m.Data())
	return nc.PublishMsg(&q.out)
}

// stored handles a publish acknowledgement: it marks its answer stored,
// and acks the newest event whose answer and every earlier one are.
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
	q.mu.Lock()
	i := token - q.first
	if token < q.first || i >= uint64(q.n) {
		q.mu.Unlock()
		q.failed.report(fmt.Errorf("%w: %d", errNotPending, token))
		return
	}
	q.pending[(q.head+int(i))%len(q.pending)].stored = true
	for q.n > 0 && q.pending[q.head].stored {
		q.unacked = q.pending[q.head].event
		q.pending[q.head] = exactAnswer{}
		q.head = (q.head + 1) % len(q.pending)
		q.n--
		q.first++
		q.ready++
	}
	var m jetstream.Msg
	switch {
	case q.unacked != nil && q.ready >= q.ackEvery:
		m, q.unacked, q.ready = q.unacked, nil, 0
	case q.unacked != nil && !q.armed:
		q.armed = true
		q.due.Reset(runner.AckDelay)
	}
	q.mu.Unlock()
	q.ack(m)
}

// ackDue acks what waited ackDelay for its ack, if no ack took it since.
func (q *exactQueue) ackDue() {
	q.mu.Lock()
	m := q.unacked
	q.unacked, q.ready, q.armed = nil, 0, false
	q.mu.Unlock()
	q.ack(m)
}

// ack acks m, if any.
func (q *exactQueue) ack(m jetstream.Msg) {
	if m != nil {
		if err := m.Ack(); err != nil {
			q.failed.report(err)
		}
	}
}
