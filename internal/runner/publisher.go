package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// publisher publishes a tenure's messages to JetStream without waiting for
// each to be stored, as nats.go's PublishMsgAsync does, but with less per
// message: no timer, no future with channels, no options, no goroutine of
// its own, and an acknowledgement read for its sequence without decoding
// it as JSON unless it reports an error.
//
// Publishes are numbered from 1 in the order made. Each carries a reply
// subject naming its slot in a ring; the server acknowledges it there once
// stored. stored is the number below which every publish is done (stored
// or failed), the point up to which a partition may ack its events. At
// most half the ring is outstanding: a publish waits for room (a slow
// server slows the partition down; it does not fail it), and a done
// publish's result stays readable until half a ring of publishes later.
//
// Acknowledgements queue in acks, which nats.go's reading goroutine fills
// without waking anyone, and are read by the partition's goroutine when it
// asks what is stored, or waits: an acknowledgement costs no wake of its
// own. acks holds a whole ring, more than can be outstanding, so none is
// ever dropped.
//
// A publisher lasts one tenure: the next tenure's replies go to another
// inbox, so a late acknowledgement of an abandoned publish finds no one.
// It is used by the partition's goroutine alone.
type publisher struct {
	nc      *nats.Conn
	sub     *nats.Subscription
	prefix  string   // reply subjects are prefix<slot>
	replies []string // the reply subject of each slot, built on first use
	timeout time.Duration
	acks    chan *nats.Msg // acknowledgements arrived and not read yet

	slots    []slot
	next     uint64    // the number of the next publish
	stored   uint64    // every publish below it is done
	failed   error     // the first publish that failed, fenced() applied
	progress time.Time // when stored last moved, or publishing resumed
	checked  time.Time // when stalled last looked
}

// slot holds one publish. It holds no pointer, so that garbage
// collections skip the ring: a publish that failed has its error in
// publisher.failed, since the first failure ends the tenure.
type slot struct {
	id     uint64 // the publish, 0 if none yet
	seq    uint64 // the stream sequence it was stored at
	done   bool
	failed bool
}

// ringSize is the number of slots: twice the publishes outstanding at most.
const ringSize = 1 << 13

// errStalled: the oldest of a partition's outstanding publishes was not
// acknowledged within the publish timeout.
var errStalled = errors.New("runner: the server acknowledged none of the outstanding publishes in time")

func newPublisher(nc *nats.Conn, timeout time.Duration) (*publisher, error) {
	p := &publisher{nc: nc, timeout: timeout, prefix: nc.NewRespInbox() + ".",
		replies: make([]string, ringSize), slots: make([]slot, ringSize), next: 1, stored: 1,
		acks: make(chan *nats.Msg, ringSize), checked: time.Now()}
	sub, err := nc.ChanSubscribe(p.prefix+"*", p.acks)
	if err != nil {
		return nil, fmt.Errorf("runner: subscribing to publish acknowledgements: %w", err)
	}
	p.sub = sub
	return p, nil
}

// close stops listening for acknowledgements: what is outstanding is
// abandoned.
func (p *publisher) close() { _ = p.sub.Unsubscribe() }

// publish publishes msg, setting its reply subject, and returns its number.
// It waits while half the ring is outstanding.
func (p *publisher) publish(ctx context.Context, msg *nats.Msg) (uint64, error) {
	for p.next-p.stored >= ringSize/2 {
		if err := p.wait(ctx); err != nil {
			return 0, err
		}
	}
	id := p.next
	i := id % ringSize
	p.slots[i] = slot{id: id}
	if p.stored == id { // nothing was outstanding: the stall clock starts now
		p.progress = time.Now()
	}
	p.next++
	if p.replies[i] == "" {
		p.replies[i] = p.prefix + strconv.FormatUint(i, 10)
	}
	msg.Reply = p.replies[i]
	if err := p.nc.PublishMsg(msg); err != nil {
		p.settle(i, id, 0, err)
		return 0, err
	}
	return id, nil
}

// read records the acknowledgements that arrived.
func (p *publisher) read() {
	for {
		select {
		case m := <-p.acks:
			p.record(m)
		default:
			return
		}
	}
}

// record records an acknowledgement.
func (p *publisher) record(m *nats.Msg) {
	i, err := strconv.ParseUint(m.Subject[len(p.prefix):], 10, 64)
	if err != nil || i >= ringSize {
		return
	}
	seq, aerr := readAck(m)
	p.settle(i, p.slots[i].id, seq, aerr)
}

// settle marks publish id, in slot i, done.
func (p *publisher) settle(i, id, seq uint64, err error) {
	s := &p.slots[i]
	if s.id != id || id == 0 || s.done {
		return
	}
	s.done, s.seq, s.failed = true, seq, err != nil
	if err != nil && p.failed == nil {
		p.failed = fenced(err)
	}
	if p.stored == id {
		for p.stored < p.next && p.slots[p.stored%ringSize].done {
			p.stored++
		}
		p.progress = time.Now()
	}
}

// done reports whether every publish below end is done, and the first
// error among every publish so far: once one fails, the tenure is over.
func (p *publisher) done(end uint64) (bool, error) {
	p.read()
	return p.stored >= end, p.failed
}

// result returns where publish id was stored. It must be done.
func (p *publisher) result(id uint64) (uint64, error) {
	s := p.slots[id%ringSize]
	if s.id != id || !s.done {
		return 0, fmt.Errorf("runner: publish %d's result is gone", id)
	}
	if s.failed {
		return 0, p.failed
	}
	return s.seq, nil
}

// stalled reports, as errStalled, that the oldest publish outstanding has
// waited for the publish timeout. A slow server stores publishes in order,
// slowly; one that lost some (a reconnect, a leader that changed) never
// acknowledges them, whatever it does with those after.
//
// It is called every quarter of the timeout. A call that comes more than
// half the timeout after the one before means this process did not run in
// between (stopped, paused, starved of CPU): the acknowledgements that
// came meanwhile may not be read from the connection yet, so the stall
// clock starts again rather than blaming the server for the pause.
func (p *publisher) stalled() error {
	p.read()
	now := time.Now()
	paused := now.Sub(p.checked) > p.timeout/2
	p.checked = now
	if paused {
		p.progress = now
		return nil
	}
	if p.stored < p.next && now.Sub(p.progress) > p.timeout {
		return fmt.Errorf("%w (%d outstanding, the oldest for over %v)", errStalled, p.next-p.stored, p.timeout)
	}
	return nil
}

// wait waits for an acknowledgement and records it with any others that
// arrived, failing once the publisher stalls.
func (p *publisher) wait(ctx context.Context) error {
	t := time.NewTimer(p.timeout / 4)
	defer t.Stop()
	select {
	case m := <-p.acks:
		p.record(m)
		p.read()
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return p.stalled()
	}
}

// waitDone waits until every publish below end is done.
func (p *publisher) waitDone(ctx context.Context, end uint64) error {
	for {
		ok, err := p.done(end)
		if err != nil || ok {
			return err
		}
		if err := p.wait(ctx); err != nil {
			return err
		}
	}
}

var (
	ackErrorKey = []byte(`"error"`)
	ackSeqKey   = []byte(`"seq":`)
)

// readAck returns the stream sequence a publish acknowledgement reports,
// or its error. It decodes the JSON only when it holds an error.
func readAck(m *nats.Msg) (uint64, error) {
	if status := m.Header.Get("Status"); status != "" {
		if status == "503" {
			return 0, nats.ErrNoResponders
		}
		return 0, fmt.Errorf("%w: status %s %s", errPublish, status, m.Header.Get("Description"))
	}
	if bytes.Contains(m.Data, ackErrorKey) {
		var resp struct {
			Error *jetstream.APIError `json:"error"`
		}
		if err := json.Unmarshal(m.Data, &resp); err != nil || resp.Error == nil {
			return 0, fmt.Errorf("%w: unreadable acknowledgement %q", errPublish, m.Data)
		}
		return 0, resp.Error
	}
	i := bytes.Index(m.Data, ackSeqKey)
	if i < 0 {
		return 0, fmt.Errorf("%w: acknowledgement without a sequence: %q", errPublish, m.Data)
	}
	var seq uint64
	for _, c := range m.Data[i+len(ackSeqKey):] {
		if c < '0' || c > '9' {
			break
		}
		seq = seq*10 + uint64(c-'0')
	}
	return seq, nil
}
