package client

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/event"
)

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

// Allowed reports whether the call may run now: an allow, or a repair. Run
// it with RunArgs.
func (v Verdict) Allowed() bool { return v.Kind == event.Allow || v.Kind == event.Repair }

// Deferred reports whether the call must wait: call Await for its release.
func (v Verdict) Deferred() bool { return v.Kind == event.Defer }

// RunArgs returns the arguments to run the call with: the repaired ones if
// a guard repaired them, else original.
func (v Verdict) RunArgs(original string) string {
	if v.Args != "" {
		return v.Args
	}
	return original
}

// Call publishes the call and waits for its verdict, under the client's
// verdict timeout, which starts once the stream has stored the call. When
// the timeout passes it returns the FailMode's verdict with ErrNoVerdict;
// failing closed, it reports the call abandoned. A call of a stopped run
// returns the stop without being published. A deferred call returns the
// defer; Await waits for its release.
//
// Only a verdict for this call, published after it, counts, and only the
// first (docs/wire.md §5.7). If ctx ends first, or the call could not be
// published, Call reports the call abandoned, since it will not run.
func (r *Run) Call(ctx context.Context, call Call) (Verdict, error) {
	r.mu.Lock()
	if r.stop != nil {
		d := *r.stop
		r.mu.Unlock()
		return Verdict{Decision: d}, nil
	}
	if call.ID == "" {
		r.numbered++
		call.ID = "c" + strconv.Itoa(r.numbered)
	}
	if err := event.CheckID(call.ID); err != nil {
		r.mu.Unlock()
		return Verdict{}, fmt.Errorf("client: call id %q: %w", call.ID, err)
	}
	if r.calls.get(call.ID) != nil {
		r.mu.Unlock()
		return Verdict{}, fmt.Errorf("client: call id %q: %w", call.ID, ErrCallReused)
	}
	r.mu.Unlock()
	ev := &event.Event{Kind: event.KindCall, Call: call.ID, Tool: call.Tool, Args: call.Args, Path: call.Path}
	// The call counts as published from the moment it has its sequence:
	// a decision about it taken in before then is not about it.
	if err := r.publish(ctx, ev, func() { r.calls.add(call.ID, call.Tool) }); err != nil {
		if !errors.Is(err, ErrClosed) {
			r.giveUp(call.ID)
			_ = r.reportAbandoned(ctx, call.ID) // it may have been stored
		}
		return Verdict{}, err
	}
	timer := time.NewTimer(r.c.opts.timeout)
	defer timer.Stop()
	d, _, err := r.await(ctx, verdictKey(call.ID), timer.C)
	if err == nil {
		return Verdict{Decision: d}, nil
	}
	if d, ok := r.giveUp(call.ID); ok {
		return Verdict{Decision: d}, nil // it came as the wait ended
	}
	if err != ErrNoVerdict {
		_ = r.reportAbandoned(ctx, call.ID)
		return Verdict{}, err
	}
	v := r.failVerdict(call.ID)
	if !v.Allowed() {
		// The guard may allow the call later and count it as running;
		// say it never ran, so the run's in-flight count stays right and
		// no guard takes it for the agent's failure.
		_ = r.reportAbandoned(ctx, call.ID)
	}
	return v, err
}

// Await waits for the release of a deferred call: an allow, or a stop of
// the run. It has no deadline of its own: a call is released when results
// of earlier calls come in, which may take as long as the tools do. An
// agent that stops waiting for good calls Abandon.
func (r *Run) Await(ctx context.Context, deferred Verdict) (Verdict, error) {
	d, _, err := r.await(ctx, verdictKey(deferred.Call), nil)
	if err != nil {
		return Verdict{}, err
	}
	if d.Args == "" {
		d.Args = deferred.Args // a repaired call keeps its repair when released
	}
	return Verdict{Decision: d}, nil
}

// Abandon reports that the agent gives up on a call it published and will
// not run: a deferred call it no longer waits for, or an allowed call it
// decided against. A verdict that comes for the call later is ignored,
// and the guards count the call neither as running nor as a failure.
func (r *Run) Abandon(ctx context.Context, call string) error {
	r.mu.Lock()
	c := r.calls.get(call)
	if c != nil {
		c.decide()
		r.box.drop(verdictKey(call))
	}
	r.mu.Unlock()
	if c == nil {
		return fmt.Errorf("client: abandoning call %q: %w", call, ErrUnknownCall)
	}
	return r.reportAbandoned(ctx, call)
}

// giveUp ends the wait for a call's verdict: it returns the verdict if one
// is filed, and otherwise marks the call decided, so a verdict that comes
// later is ignored.
func (r *Run) giveUp(call string) (event.Decision, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d, ok := r.box.take(verdictKey(call)); ok {
		return d, true
	}
	if c := r.calls.get(call); c != nil {
		c.decide()
	}
	return event.Decision{}, false
}

// reportAbandoned publishes an abandoned result for call. If ctx has
// ended, the report gets a verdict timeout of its own.
func (r *Run) reportAbandoned(ctx context.Context, call string) error {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), r.c.opts.timeout)
		defer cancel()
	}
	err := r.publish(ctx, &event.Event{Kind: event.KindResult, Call: call, Tool: r.toolOf(call), Abandoned: true}, nil)
	if err == nil {
		r.c.stats.abandoned.Add(1)
	}
	return err
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
