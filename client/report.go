package client

import (
	"context"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// Step is one LLM step of the agent loop and what it used.
type Step struct {
	Number    int64 // the step's number within the run
	Turn      int64 // the user turn it belongs to
	TokensIn  int64 // prompt tokens used
	TokensOut int64 // completion tokens used
	Cost      int64 // cost in micro-units of currency
	Context   int64 // tokens in the context window after the step
	Window    int64 // size of the context window
	Planning  bool  // the step planned rather than acted
	// Doc is a structured document the step produced, as JSON text, to be
	// checked against the declared schema named DocSchema.
	Doc, DocSchema string
}

// Step publishes an LLM step.
func (r *Run) Step(ctx context.Context, s Step) error {
	return r.publish(ctx, &event.Event{
		Kind: event.KindStep, Step: s.Number, Turn: s.Turn, TokensIn: s.TokensIn, TokensOut: s.TokensOut,
		Cost: s.Cost, Context: s.Context, Window: s.Window, Planning: s.Planning, Doc: s.Doc, DocSchema: s.DocSchema,
	})
}

// Result is the result of a call.
type Result struct {
	Call string
	// Err says the tool failed; Out then holds the error text.
	Err bool
	Out string
	// Exit is the exit code of a tool that runs a process.
	Exit int64
	// Verify marks a result that verifies the work, such as a test run.
	Verify bool
	// Changes says what an editing call changed.
	Changes *event.Changes
}

// Result publishes the result of a call. An output larger than the
// client's inline limit is put in the guard_outputs object store, named by
// its digest, and the result carries its reference.
func (r *Run) Result(ctx context.Context, res Result) error {
	ev := &event.Event{
		Kind: event.KindResult, Call: res.Call, Tool: r.toolOf(res.Call), Err: res.Err, Out: res.Out,
		Exit: res.Exit, Verify: res.Verify, Changes: res.Changes,
	}
	if len(res.Out) > r.c.opts.inline {
		st, err := r.c.outputs(ctx)
		if err != nil {
			return fmt.Errorf("client: the output is %d bytes, over the inline limit, and the object store is not available: %w", len(res.Out), err)
		}
		ref, err := st.Put(ctx, []byte(res.Out))
		if err != nil {
			return fmt.Errorf("client: storing the output of %s: %w", res.Call, err)
		}
		ev.Out, ev.Ref = "", &ref
	}
	return r.publish(ctx, ev)
}

// Page returns the page of a stored output that starts at line offset,
// read from the object store: an agent can read on in a long output
// without running the tool again. Zero options take the defaults (500
// lines, 32 KiB); set Workspace to the run's to make its paths relative,
// as in the views the guard sends.
func (r *Run) Page(ctx context.Context, ref event.OutputRef, offset int64, o view.Options) (view.View, error) {
	st, err := r.c.outputs(ctx)
	if err != nil {
		return view.View{}, err
	}
	return st.Page(ctx, ref, offset, o)
}

// Output waits for the bounded view of a call's result that the model is
// to see instead of the full output, up to the verdict timeout.
func (r *Run) Output(ctx context.Context, call string) (event.Decision, error) {
	timer := time.NewTimer(r.c.opts.timeout)
	defer timer.Stop()
	d, stopped, err := r.await(ctx, outputKey(call), timer.C)
	if err == nil && stopped {
		err = ErrStopped
	}
	return d, err
}

// Heartbeat tells the guard the agent is alive, renewing the run's lease.
func (r *Run) Heartbeat(ctx context.Context) error {
	return r.publish(ctx, &event.Event{Kind: event.KindHeartbeat})
}

// End publishes the end of the run with the outcome the agent claims, and
// stops heartbeating. The run still receives decisions until Close.
func (r *Run) End(ctx context.Context, status event.Status) error {
	r.halt()
	return r.publish(ctx, &event.Event{Kind: event.KindRunEnd, Status: status})
}

// Round announces a parallel round: the calls with these ids, whose
// results the guard releases together, ordered by call id, in one settled
// decision once all are in or wait has passed (0: no deadline). Announce a
// round before making its calls.
func (r *Run) Round(ctx context.Context, calls []string, wait time.Duration) error {
	return r.publish(ctx, &event.Event{Kind: event.KindRound, Calls: calls, Wait: wait.Milliseconds()})
}

// Settled waits for the settling of the round that holds call: a settled
// decision listing the round's calls in call-id order and those whose
// results did not come in time.
func (r *Run) Settled(ctx context.Context, call string) (event.Decision, error) {
	d, stopped, err := r.await(ctx, settledKey(call), nil)
	if err == nil && stopped {
		err = ErrStopped
	}
	return d, err
}
