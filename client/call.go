package client

import (
	"context"
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

// Call publishes the call and waits for its verdict. When the deadline
// passes it returns the FailMode's verdict with ErrNoVerdict. A call of a
// stopped run returns the stop without being published. A deferred call
// returns the defer; Await waits for its release.
func (r *Run) Call(ctx context.Context, call Call) (Verdict, error) {
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
	err := r.publishLocked(ctx, &event.Event{Kind: event.KindCall, Call: call.ID, Tool: call.Tool, Args: call.Args, Path: call.Path})
	if err == nil {
		r.rememberTool(call.ID, call.Tool)
	}
	r.mu.Unlock()
	if err != nil {
		return Verdict{}, err
	}
	timer := time.NewTimer(r.c.opts.timeout)
	defer timer.Stop()
	d, _, err := r.await(ctx, verdictKey(call.ID), timer.C)
	switch {
	case err == ErrNoVerdict:
		v := r.failVerdict(call.ID)
		if !v.Allowed() {
			// The guard may allow the call later and count it as running;
			// say it did not, so the run's in-flight count stays right.
			_ = r.Result(ctx, Result{Call: call.ID, Err: true, Out: "not run: " + v.Msg})
		}
		return v, err
	case err != nil:
		return Verdict{}, err
	}
	return Verdict{Decision: d}, nil
}

// Await waits for the release of a deferred call: an allow, or a stop of
// the run. It has no deadline of its own: a call is released when results
// of earlier calls come in, which may take as long as the tools do.
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
