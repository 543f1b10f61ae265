package client

import (
	"context"
	"sync"
	"time"
)

// link is what a run knows of its connection: since when it may have missed
// decisions, and a context that ends at the next reconnect, which cuts
// short the publishes waiting on the old connection.
//
// Reconnects are counted by the connection (nats.Conn.Stats), so a run
// notices one from whichever comes first: the status listener, a publish
// acknowledged, or a decision received over the new connection.
type link struct {
	mu         sync.Mutex
	reconnects uint64    // the connection's reconnects this link has seen
	alive      time.Time // the last time traffic proved the subscription received
	behind     bool      // a reconnect came and no catch-up has completed since
	since      time.Time // when behind: alive before the first reconnect missed
	epoch      context.Context
	next       context.CancelFunc // ends epoch
}

func newLink(reconnects uint64, now time.Time) *link {
	l := &link{reconnects: reconnects, alive: now}
	l.epoch, l.next = context.WithCancel(context.Background())
	return l
}

// observe takes in the connection's reconnect count: a new reconnect puts
// the link behind from its last sign of life, and ends the epoch.
func (l *link) observe(reconnects uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.observeLocked(reconnects)
}

func (l *link) observeLocked(reconnects uint64) {
	if reconnects <= l.reconnects {
		return
	}
	l.reconnects = reconnects
	if !l.behind {
		l.behind, l.since = true, l.alive
	}
	l.next()
	l.epoch, l.next = context.WithCancel(context.Background())
}

// touch records traffic at now over the connection as it is after
// reconnects.
func (l *link) touch(reconnects uint64, now time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.observeLocked(reconnects)
	l.alive = now
}

// current returns the context that ends at the next reconnect.
func (l *link) current() context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.epoch
}

// gap returns whether the run may have missed decisions, from when, and
// the reconnect count a catch-up starting now covers.
func (l *link) gap() (behind bool, since time.Time, reconnects uint64) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.behind, l.since, l.reconnects
}

// caughtUp records a catch-up that covered the link up to reconnects: the
// run is no longer behind, unless another reconnect came meanwhile.
func (l *link) caughtUp(reconnects uint64) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.reconnects != reconnects {
		return false
	}
	l.behind = false
	return true
}
