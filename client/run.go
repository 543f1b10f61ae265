package client

import (
	"context"
	"fmt"
	"strconv"
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

	mu      sync.Mutex // serialises publishes, so stream order is seq order
	seq     int64
	calls   int
	waiters map[string]chan event.Decision
	stop    *event.Decision
	closed  bool

	advice chan event.Decision
	done   chan struct{}
	seen   recent // Nats-Msg-Ids of recent decisions
}

func newRun(c *Client, id string) *Run {
	return &Run{
		c:       c,
		id:      id,
		waiters: map[string]chan event.Decision{},
		advice:  make(chan event.Decision, c.opts.advice),
		done:    make(chan struct{}),
	}
}

// ID returns the run id.
func (r *Run) ID() string { return r.id }

// Advice delivers advise decisions, oldest first.
func (r *Run) Advice() <-chan event.Decision { return r.advice }

// Done is closed when the run is stopped by a guard.
func (r *Run) Done() <-chan struct{} { return r.done }

// Stop returns the stop decision, or nil while the run goes on.
func (r *Run) Stop() *event.Decision {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stop
}

// Call is a tool call to check before running it.
type Call struct {
	// ID is the call id; empty picks c1, c2, ... in order.
	ID   string
	Tool string
	// Args are the arguments as JSON text, as the model produced them.
	Args string
	// Path is the path the call acts on, if any.
	Path string
}

// Verdict is the answer to a call.
type Verdict struct {
	event.Decision
	// Synthetic is set when no verdict arrived in time and the client's
	// FailMode made this one.
	Synthetic bool
}

// Allowed reports whether the call may run: allow, or repair with Args.
func (v Verdict) Allowed() bool { return v.Kind == event.Allow || v.Kind == event.Repair }

// Call publishes the call and waits for its verdict. When the deadline
// passes it returns the FailMode's verdict with ErrNoVerdict. A call of a
// stopped run returns the stop without being published.
func (r *Run) Call(ctx context.Context, call Call) (Verdict, error) {
	ch := make(chan event.Decision, 1)
	r.mu.Lock()
	if r.stop != nil {
		d := *r.stop
		r.mu.Unlock()
		return Verdict{Decision: d}, nil
	}
	if call.ID == "" {
		r.calls++
		call.ID = "c" + strconv.Itoa(r.calls)
	}
	if err := event.CheckID(call.ID); err != nil {
		r.mu.Unlock()
		return Verdict{}, fmt.Errorf("client: call id %q: %w", call.ID, err)
	}
	r.waiters[call.ID] = ch
	err := r.publishLocked(ctx, &event.Event{Kind: event.KindCall, Call: call.ID, Tool: call.Tool, Args: call.Args, Path: call.Path})
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		delete(r.waiters, call.ID)
		r.mu.Unlock()
	}()
	if err != nil {
		return Verdict{}, err
	}

	timer := time.NewTimer(r.c.opts.timeout)
	defer timer.Stop()
	select {
	case d := <-ch:
		return Verdict{Decision: d}, nil
	case <-r.done:
		return Verdict{Decision: *r.Stop()}, nil
	case <-ctx.Done():
		return Verdict{}, ctx.Err()
	case <-timer.C:
		return r.failVerdict(call.ID), ErrNoVerdict
	}
}

func (r *Run) failVerdict(call string) Verdict {
	d := event.Decision{
		V: event.Version, Kind: event.Reject, Tenant: r.c.tenant, Run: r.id, Call: call,
		Msg: fmt.Sprintf("no verdict within %v (%s)", r.c.opts.timeout, r.c.opts.failMode),
	}
	if r.c.opts.failMode == FailOpen {
		d.Kind = event.Allow
	}
	return Verdict{Decision: d, Synthetic: true}
}

// Result reports the result of a call.
type Result struct {
	Call string
	// Err says the tool failed; Out then holds the error text.
	Err bool
	Out string
}

// Result publishes the result of a call.
func (r *Run) Result(ctx context.Context, res Result) error {
	return r.publish(ctx, &event.Event{Kind: event.KindResult, Call: res.Call, Err: res.Err, Out: res.Out})
}

// Step publishes an LLM step.
func (r *Run) Step(ctx context.Context, step int64) error {
	return r.publish(ctx, &event.Event{Kind: event.KindStep, Step: step})
}

// Heartbeat tells the guard the agent is alive.
func (r *Run) Heartbeat(ctx context.Context) error {
	return r.publish(ctx, &event.Event{Kind: event.KindHeartbeat})
}

// End publishes the end of the run with the outcome the agent claims. The
// run still receives decisions until Close.
func (r *Run) End(ctx context.Context, status event.Status) error {
	return r.publish(ctx, &event.Event{Kind: event.KindRunEnd, Status: status})
}

// Close stops receiving decisions.
func (r *Run) Close() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.closed = true
	return r.sub.Unsubscribe()
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
	switch {
	case d.Kind == event.Advise:
		r.offerAdvice(d)
	case d.Kind == event.Stop:
		if r.stop == nil {
			r.stop = &d
			close(r.done)
		}
		if ch, ok := r.waiters[d.Call]; ok && d.Call != "" {
			ch <- d
			delete(r.waiters, d.Call)
		}
	case d.Kind.IsVerdict():
		if ch, ok := r.waiters[d.Call]; ok {
			ch <- d
			delete(r.waiters, d.Call)
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
