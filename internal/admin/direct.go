package admin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The header of the direct get API's end-of-batch status (204) that
// nats.go does not name: how many messages matching the request come
// after the last it sent.
const headerNumPending = "Nats-Num-Pending"

// errDirectGet: the server refused a direct get with a status.
var errDirectGet = errors.New("admin: a direct get failed")

// directRequest is the direct get API's request (the server's
// JSApiMsgGetRequest): the next batch messages on NextFor from sequence Seq,
// or from the first stored at or after StartTime, up to about MaxBytes.
type directRequest struct {
	Seq       uint64     `json:"seq,omitempty"`
	NextFor   string     `json:"next_by_subj,omitempty"`
	StartTime *time.Time `json:"start_time,omitempty"`
	Batch     int        `json:"batch,omitempty"`
	MaxBytes  int        `json:"max_bytes,omitempty"`
}

// directMsg is a message a direct get answered.
type directMsg struct {
	seq     uint64
	subject string
	header  nats.Header
	data    []byte
}

// directGets reads streams through their direct get API
// ($JS.API.DIRECT.GET.<stream>, Config.AllowDirect), in batches. Unlike a
// consumer, a direct get leaves nothing behind on the server and is no
// meta-layer proposal in a cluster: it is a request that the stream's
// replicas answer from their store, one message at a time and then an
// end-of-batch status. A replica may be a little behind its leader, as an
// ordered consumer placed on it was.
//
// The answers of every request come to one subscription, on
// <inbox>.<request number>, which hands each to the request it belongs to:
// no subscription per request, which in a cluster would be interest to
// propagate. It reads GUARD_CONTROL for the agent API and for Locate.
//
// (internal/runner's reader does the same for the runner's partitions,
// one request at a time per reader; a helper both use would belong in
// package streams.)
type directGets struct {
	nc    *nats.Conn
	inbox string
	sub   *nats.Subscription

	mu    sync.Mutex
	n     uint64
	calls map[string]chan *nats.Msg // by reply subject
}

func newDirectGets(nc *nats.Conn) (*directGets, error) {
	d := &directGets{nc: nc, inbox: nc.NewRespInbox(), calls: map[string]chan *nats.Msg{}}
	sub, err := nc.Subscribe(d.inbox+".*", d.route)
	if err != nil {
		return nil, fmt.Errorf("admin: subscribing to direct get answers: %w", err)
	}
	d.sub = sub
	return d, nil
}

func (d *directGets) close() { _ = d.sub.Unsubscribe() }

// route hands an answer to its request. It never blocks: a request's
// channel holds every answer the server sends to it (its batch and the
// end of the batch), and the late answers of a request that gave up are
// dropped.
func (d *directGets) route(m *nats.Msg) {
	d.mu.Lock()
	ch := d.calls[m.Subject]
	d.mu.Unlock()
	select {
	case ch <- m: // a nil ch (no such request) never takes it
	default:
	}
}

// get sends req to stream's direct get API and returns the messages it
// answered and how many messages matching the request come after the last
// of them.
func (d *directGets) get(ctx context.Context, stream string, req directRequest) ([]directMsg, uint64, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, 0, err
	}
	ch := make(chan *nats.Msg, max(req.Batch, 1)+1) // and the end of the batch
	d.mu.Lock()
	d.n++
	reply := d.inbox + "." + strconv.FormatUint(d.n, 10)
	d.calls[reply] = ch
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.calls, reply)
		d.mu.Unlock()
	}()
	if err := d.nc.PublishRequest(streams.DirectGetSubject(stream), reply, body); err != nil {
		return nil, 0, err
	}
	var out []directMsg
	for {
		var m *nats.Msg
		select {
		case m = <-ch:
		case <-ctx.Done():
			return out, 0, fmt.Errorf("admin: reading %s: %w", stream, ctx.Err())
		}
		switch status := m.Header.Get("Status"); status {
		case "":
		case "204": // the end of the batch
			pending, _ := strconv.ParseUint(m.Header.Get(headerNumPending), 10, 64)
			return out, pending, nil
		case "404": // nothing matches
			return out, 0, nil
		case "503":
			return out, 0, fmt.Errorf("%w: %s: no replica answers direct gets: %w", errDirectGet, stream, nats.ErrNoResponders)
		default:
			return out, 0, fmt.Errorf("%w: %s: %s %s", errDirectGet, stream, status, m.Header.Get("Description"))
		}
		seq, err := strconv.ParseUint(m.Header.Get(jetstream.SequenceHeader), 10, 64)
		if err != nil {
			return out, 0, fmt.Errorf("%w: %s: an answer without its sequence", errDirectGet, stream)
		}
		out = append(out, directMsg{seq: seq, subject: m.Header.Get(jetstream.SubjectHeader), header: m.Header, data: m.Data})
	}
}
