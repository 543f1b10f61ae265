package client

import (
	"context"
	"sync"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Run is one run of an agent. Its methods are safe for concurrent use:
// tools of a parallel round may report from their own goroutines.
type Run struct {
	c      *Client
	id     string
	filter string // guard.ctl.<tenant>.<run>.>
	sub    *nats.Subscription
	link   *link

	pub sync.Mutex // serialises publishes, so stream order is seq order

	mu       sync.Mutex // guards what follows
	seq      int64
	numbered int // calls numbered c1, c2, ... so far
	calls    calls
	box      mailbox
	stop     *event.Decision
	closed   bool
	seen     recent // Nats-Msg-Ids of recent decisions taken in

	advice   chan event.Decision
	done     chan struct{} // closed when a guard stops the run
	quit     chan struct{} // closed by Close or End: stops the heartbeat
	gone     chan struct{} // closed by Close: stops watching the connection
	quitOnce sync.Once
	goneOnce sync.Once
}

func newRun(c *Client, id, filter string) *Run {
	return &Run{
		c:      c,
		id:     id,
		filter: filter,
		link:   newLink(c.reconnects(), time.Now()),
		advice: make(chan event.Decision, c.opts.advice),
		done:   make(chan struct{}),
		quit:   make(chan struct{}),
		gone:   make(chan struct{}),
	}
}

// ID returns the run id.
func (r *Run) ID() string { return r.id }

// Advice delivers advise and pressure decisions, oldest first.
func (r *Run) Advice() <-chan event.Decision { return r.advice }

// Done is closed when the run is stopped by a guard.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stop returns the stop decision, or nil while the run goes on.
func (r *Run) Stop() *event.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// Close stops receiving decisions, watching the connection and
// heartbeating.
func (r *Run) Close() error {
	r.halt()
	r.goneOnce.Do(func() { close(r.gone) })
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return r.sub.Unsubscribe()
}

// toolOf returns the tool of a call the run published.
func (r *Run) toolOf(call string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if c := r.calls.get(call); c != nil {
		return c.tool
	}
	return ""
}

// halt stops the heartbeat.
func (r *Run) halt() { r.quitOnce.Do(func() { close(r.quit) }) }

// heartbeat publishes a heartbeat every interval until the run is halted,
// closed or stopped.
func (r *Run) heartbeat(interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-r.quit:
			return
		case <-r.done:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), interval)
			_ = r.Heartbeat(ctx) // a missed beat is what the lease is for
			cancel()
		}
	}
}

// receive handles a decision the subscription delivered.
func (r *Run) receive(m *nats.Msg) {
	r.link.touch(r.c.reconnects(), time.Now())
	r.deliver(m.Header.Get(jetstream.MsgIDHeader), m.Data, false)
}

// deliver takes in a decision about the run with message id id, delivered
// live or, when caughtUp, by a catch-up, if the trust rules admit it. It
// reports whether it took the decision in.
func (r *Run) deliver(id string, data []byte, caughtUp bool) bool {
	var d event.Decision
	if err := event.DecodeDecision(data, &d); err != nil {
		return false // not ours to judge; the contract only grows
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// After a crash guard-consumer may publish a decision again, and a
	// catch-up reads again what came just before a disconnect: the stream
	// drops such copies, but a subscription sees them.
	if r.seen.has(id) {
		return false
	}
	if d.Tenant != r.c.tenant || d.Run != r.id || !r.takeLocked(&d) {
		if !caughtUp { // a catch-up reads decisions already taken; they are no news
			r.c.stats.ignored.Add(1)
		}
		return false
	}
	// Only a decision taken in is remembered: a forgery that carries the
	// id of a decision to come must not make the real one a duplicate.
	r.seen.add(id)
	if caughtUp {
		r.c.stats.recovered.Add(1)
	}
	return true
}

// takeLocked applies the trust rules to d and, if they admit it, files it
// for whoever waits for it. It reports whether d was taken in:
//
//   - a verdict (allow, repair, reject, defer, stale) counts only for a call
//     the run published, until the call is decided: the first final verdict
//     wins, a defer counts once, before it, and after a defer only its
//     release, an allow, counts;
//   - a stop always ends the run, unless it names a call the run did not
//     publish; for a call still waiting, it is the verdict;
//   - an output counts once per published call, a settled once for each
//     published call it lists;
//   - advice and pressure are about no call's fate and always count.
//
// Kinds this client does not know, and verdicts without a call (a step's
// repair or reject), are not taken in.
func (r *Run) takeLocked(d *event.Decision) bool {
	switch d.Kind {
	case event.Advise, event.Pressure:
		r.offerAdvice(*d)
		return true
	case event.Output:
		c := r.calls.get(d.Call)
		if c == nil || c.output {
			return false
		}
		c.output = true
		r.box.post(outputKey(d.Call), *d)
		return true
	case event.Settled:
		took := false
		for _, list := range [][]string{d.Calls, d.Missing} {
			for _, id := range list {
				if c := r.calls.get(id); c != nil && !c.settled {
					c.settled, took = true, true
					r.box.post(settledKey(id), *d)
				}
			}
		}
		return took
	case event.Stop:
		var c *callState
		if d.Call != "" {
			if c = r.calls.get(d.Call); c == nil {
				return false
			}
		}
		if r.stop == nil {
			r.stop = d
			close(r.done)
		}
		if c != nil && c.decide() {
			r.box.post(verdictKey(d.Call), *d)
		}
		return true
	}
	if !d.Kind.IsVerdict() || d.Call == "" {
		return false
	}
	if c := r.calls.get(d.Call); c == nil || !c.accepts(d.Kind) {
		return false
	}
	r.box.post(verdictKey(d.Call), *d)
	return true
}

// offerAdvice queues d, dropping the oldest advice when the buffer is full.
func (r *Run) offerAdvice(d event.Decision) {
	for {
		select {
		case r.advice <- d:
			return
		default:
		}
		select {
		case <-r.advice:
		default:
		}
	}
}
