package client

import (
	"context"
	"time"

	"github.com/guardstream/guardstream/event"
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

// Result publishes the result of a call.
func (r *Run) Result(ctx context.Context, res Result) error {
	return r.publish(ctx, &event.Event{
		Kind: event.KindResult, Call: res.Call, Err: res.Err, Out: res.Out,
		Exit: res.Exit, Verify: res.Verify, Changes: res.Changes,
	})
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
