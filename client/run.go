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
	c   *Client
	id  string
	sub *nats.Subscription

	mu     sync.Mutex // serialises publishes, so stream order is seq order
	seq    int64
	calls  int
	box    mailbox
	tools  map[string]string // tool of each call awaiting its result
	stop   *event.Decision
	closed bool
	seen   recent // Nats-Msg-Ids of recent decisions

	advice chan event.Decision
	done   chan struct{} // closed when a guard stops the run
	quit   chan struct{} // closed by Close or End: stops the heartbeat
	once   sync.Once
}

func newRun(c *Client, id string) *Run {
	return &Run{
		c:      c,
		id:     id,
		advice: make(chan event.Decision, c.opts.advice),
		tools:  map[string]string{},
		done:   make(chan struct{}),
		quit:   make(chan struct{}),
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

// Close stops receiving decisions and heartbeating.
func (r *Run) Close() error {
	r.halt()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return r.sub.Unsubscribe()
}

// maxTools bounds the calls whose tool a run remembers for their results.
const maxTools = 1024

// rememberTool notes the tool of a call, so its result can name it.
func (r *Run) rememberTool(call, tool string) {
	if len(r.tools) >= maxTools {
		clear(r.tools) // results of calls this old are rare; they go without
	}
	r.tools[call] = tool
}

// toolOf returns, and forgets, the tool of a call.
func (r *Run) toolOf(call string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tools[call]
	delete(r.tools, call)
	return t
}

// halt stops the heartbeat.
func (r *Run) halt() { r.once.Do(func() { close(r.quit) }) }

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

func (r *Run) publish(ctx context.Context, ev *event.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.publishLocked(ctx, ev)
}

// publishLocked stamps ev with the run's envelope and next sequence and
// publishes it; r.mu is held, so events reach the stream in seq order.
func (r *Run) publishLocked(ctx context.Context, ev *event.Event) error {
	if r.closed {
		return ErrClosed
	}
	ev.V, ev.Tenant, ev.Run, ev.TS = event.Version, r.c.tenant, r.id, r.c.opts.now().UnixMilli()
	// Advance even if the publish fails: it may have been stored, and a
	// gap in the sequence is allowed where a reuse is not.
	r.seq++
	ev.Seq = r.seq
	return r.c.publish(ctx, ev)
}

// receive handles a decision about the run.
func (r *Run) receive(m *nats.Msg) {
	var d event.Decision
	if err := event.DecodeDecision(m.Data, &d); err != nil {
		return // not ours to judge; the contract only grows
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	// After a crash guard-consumer may publish a decision again; the
	// stream drops the copy but a plain subscription sees it.
	if r.seen.add(m.Header.Get(jetstream.MsgIDHeader)) {
		return
	}
	switch d.Kind {
	case event.Advise, event.Pressure:
		r.offerAdvice(d)
	case event.Output:
		r.box.post(outputKey(d.Call), d)
	case event.Settled:
		for _, c := range append(append([]string(nil), d.Calls...), d.Missing...) {
			r.box.post(settledKey(c), d)
		}
	case event.Stop:
		if r.stop == nil {
			r.stop = &d
			close(r.done)
		}
		if d.Call != "" {
			r.box.post(verdictKey(d.Call), d)
		}
	default:
		if d.Kind.IsVerdict() && d.Call != "" {
			r.box.post(verdictKey(d.Call), d)
		}
	}
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
