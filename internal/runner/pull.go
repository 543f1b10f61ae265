package runner

import (
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// PullHeartbeat is how often the server reports a waiting pull. nats.go
// (v1.55) can miss re-pulling when the pull it just sent is answered before
// it notes that the send is over; the partition then idles until two
// heartbeats are missed, which at the default 15 s heartbeat stalled
// partitions for 30 s under load. A 1 s heartbeat bounds that stall at 2 s.
// guard-bench's baseline pulls the same way.
const PullHeartbeat = time.Second

// minPinnedTTL is the shortest pin TTL: a pull expires, and is renewed,
// every max(2 heartbeats, TTL/2), and the renewal is what keeps the pin.
const minPinnedTTL = 3 * PullHeartbeat

// pullExpiry returns how long each pull request lasts. The server keeps
// a partition pinned to an instance only while it sends pull requests, so
// an idle owner must renew its pull well within the pin's TTL.
func pullExpiry(ttl time.Duration) time.Duration { return max(2*PullHeartbeat, ttl/2) }

// pull is a partition's standing pull request in its priority group:
// nats.go's Consume, feeding a channel the partition reads. Every
// instance keeps one on each partition it may take; the server delivers
// to the one it pinned.
type pull struct {
	cc     jetstream.ConsumeContext
	msgs   chan jetstream.Msg
	errs   chan error      // what ends the pull's tenure: a lost pin, a deleted consumer
	closed <-chan struct{} // closed once nats.go stopped consuming, by Stop, Drain or a terminal error
	stop   chan struct{}
	once   sync.Once
}

// startPull starts pulling from cons, asking for up to batch events at
// once: as many as the consumer lets be unacked, so that a partition that
// handles its events quickly (a flood refused unread) is not held to a
// pull request's round trip per few hundred. buffer is how many delivered
// events the channel holds: at least the consumer's MaxAckPending, so that
// nats.go's delivery never waits for the partition and its pull requests,
// which keep the pin, go out on time.
func startPull(cons jetstream.Consumer, batch, buffer int, ttl time.Duration, log *slog.Logger) (*pull, error) {
	pl := &pull{msgs: make(chan jetstream.Msg, buffer), errs: make(chan error, 16), stop: make(chan struct{})}
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case pl.msgs <- m:
		case <-pl.stop:
		}
	},
		jetstream.PullMaxMessages(batch), jetstream.PullHeartbeat(PullHeartbeat), jetstream.PullExpiry(pullExpiry(ttl)),
		jetstream.PullPriorityGroup(streams.PriorityGroup),
		jetstream.ConsumeErrHandler(func(_ jetstream.ConsumeContext, err error) {
			log.Debug("consume", "err", err)
			// Only what ends the tenure is passed on, so that the missed
			// heartbeats of a long recovery cannot fill errs and crowd out
			// a lost pin; once errs holds one, the rest add nothing.
			if errors.Is(err, jetstream.ErrPinIDMismatch) || errors.Is(err, nats.ErrNoResponders) {
				select {
				case pl.errs <- err:
				default:
				}
			}
		}))
	if err != nil {
		return nil, err
	}
	pl.cc, pl.closed = cc, cc.Closed()
	return pl, nil
}

// close stops pulling and drops what was delivered but not read: the
// server redelivers it to whoever owns the partition next.
func (pl *pull) close() {
	pl.once.Do(func() {
		close(pl.stop)
		pl.cc.Stop()
	})
}

// pinOf returns the pin under which the server delivered m: the priority
// group's pinned client at the time. A change of pin means the partition
// was someone else's in between.
func pinOf(m jetstream.Msg) string { return m.Headers().Get(streams.HeaderPinID) }
