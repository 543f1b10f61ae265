package bench

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/nats-io/nats.go"
)

// maxUnacked bounds a sender's publishes awaiting their acknowledgement,
// as nats.go's asynchronous publish does by default.
const maxUnacked = 4000

// sender publishes a latency window's events to JetStream as an agent
// fleet would, at the least cost to this process, which the guard, the
// loops and the load generator share: a core publish with a reply
// subject, and acknowledgements counted and checked for an error without
// being decoded. nats.go's asynchronous publish keeps a future per
// message and decodes every acknowledgement as JSON, which at 20k events/s
// was an eighth of this process's CPU and much of its garbage, taken from
// whichever pipeline the window measured.
type sender struct {
	nc       *nats.Conn
	sub      *nats.Subscription
	reply    string
	sent     int64 // written by the publishing goroutine only
	acked    atomic.Int64
	progress chan struct{} // signalled as acknowledgements arrive
	failed   failure
}

func newSender(nc *nats.Conn) (*sender, error) {
	s := &sender{nc: nc, reply: nc.NewRespInbox(), progress: make(chan struct{}, 1), failed: make(failure, 1)}
	sub, err := nc.Subscribe(s.reply, s.onAck)
	if err != nil {
		return nil, err
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		_ = sub.Unsubscribe()
		return nil, err
	}
	s.sub = sub
	return s, nil
}

func (s *sender) close() { _ = s.sub.Unsubscribe() }

// onAck counts an acknowledgement; one that is not a plain acknowledgement
// (a status, such as no stream answering, or an error) fails the window.
func (s *sender) onAck(m *nats.Msg) {
	if len(m.Data) == 0 || bytes.Contains(m.Data, []byte(`"error"`)) {
		s.failed.report(fmt.Errorf("bench: an event was not stored: %s %s %q", m.Header.Get("Status"), m.Header.Get("Description"), m.Data))
	}
	s.acked.Add(1)
	select {
	case s.progress <- struct{}{}:
	default:
	}
}

// publish publishes m, setting its reply subject, once fewer than
// maxUnacked publishes await their acknowledgement.
func (s *sender) publish(ctx context.Context, m *nats.Msg) error {
	for s.sent-s.acked.Load() >= maxUnacked {
		if err := s.await(ctx); err != nil {
			return err
		}
	}
	m.Reply = s.reply
	s.sent++
	return s.nc.PublishMsg(m)
}

// wait waits until every publish is acknowledged.
func (s *sender) wait(ctx context.Context) error {
	for s.acked.Load() < s.sent {
		if err := s.await(ctx); err != nil {
			return err
		}
	}
	select {
	case err := <-s.failed:
		return err
	default:
		return nil
	}
}

// await waits for an acknowledgement counted since the last await, or a
// failure.
func (s *sender) await(ctx context.Context) error {
	select {
	case <-s.progress:
		return nil
	case err := <-s.failed:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
