package client

import (
	"context"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
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
	// TextDigest is a digest of the assistant's text in this step (tdig),
	// at most 256 printable bytes, such as event.Digest of its UTF-8
	// bytes; empty for a step without text. The guard only compares
	// digests, so use one form throughout a run. The same text again and
	// again with no tool result between is a monologue.
	TextDigest string
}

// Step publishes an LLM step.
func (r *Run) Step(ctx context.Context, s Step) error {
	return r.publish(ctx, &event.Event{
		Kind: event.KindStep, Step: s.Number, Turn: s.Turn, TokensIn: s.TokensIn, TokensOut: s.TokensOut,
		Cost: s.Cost, Context: s.Context, Window: s.Window, Planning: s.Planning, Doc: s.Doc, DocSchema: s.DocSchema,
		TextDig: s.TextDigest,
	}, nil)
}

// Turn publishes the start of a user turn: a new prompt, or the user's
// "continue" after the agent paused. number is the turn it opens, 0 for
// the next one. What a new turn resets is the run's policy's to say
// (docs/wire.md §5.10).
func (r *Run) Turn(ctx context.Context, number int64) error {
	if number < 0 {
		return fmt.Errorf("client: turn %d; want 0 (the next) or more", number)
	}
	return r.publish(ctx, &event.Event{Kind: event.KindTurn, Turn: number}, nil)
}

// Compaction is a compaction of the model's context.
type Compaction struct {
	Context int64 // tokens in the context window after the compaction
	Window  int64 // size of the context window
}

// Compaction publishes that the agent compacted (condensed, summarised,
// trimmed) the context its model sees.
func (r *Run) Compaction(ctx context.Context, c Compaction) error {
	if c.Context < 0 || c.Window < 0 {
		return fmt.Errorf("client: compaction to %d of %d tokens; want counts of 0 or more", c.Context, c.Window)
	}
	return r.publish(ctx, &event.Event{Kind: event.KindCompact, Context: c.Context, Window: c.Window}, nil)
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
// client's inline limit is stored in GUARD_OUTPUTS under the tenant, named
// by its digest, and the result carries its reference.
func (r *Run) Result(ctx context.Context, res Result) error {
	ev := &event.Event{
		Kind: event.KindResult, Call: res.Call, Tool: r.toolOf(res.Call), Err: res.Err, Out: res.Out,
		Exit: res.Exit, Verify: res.Verify, Changes: res.Changes,
	}
	if len(res.Out) > r.c.opts.inline {
		ref, err := objectstore.Upload(ctx, r.c.js, r.c.tenant, []byte(res.Out), objectstore.DefaultConfig())
		if err != nil {
			return fmt.Errorf("client: storing the output of %s: %w", res.Call, err)
		}
		ev.Out, ev.Ref = "", &ref
	}
	// The result ends the call: a verdict that comes for it later is
	// ignored, and its output decision is taken in.
	return r.publish(ctx, ev, func() { r.calls.add(res.Call, ev.Tool).decide() })
}

// Page returns the page of a stored output that starts at line offset,
// which guard-consumer reads for the agent (agentapi): an agent can read on
// in a long output without running the tool again. Zero options take the
// defaults (500 lines, 32 KiB); set Workspace to the run's to make its
// paths relative, as in the views the guard sends.
func (r *Run) Page(ctx context.Context, ref event.OutputRef, offset int64, o view.Options) (view.View, error) {
	v, err := agentapi.GetPage(ctx, r.c.nc, r.c.tenant, agentapi.PageRequest{
		Ref: ref, Offset: offset, MaxLines: o.MaxLines, MaxBytes: o.MaxBytes, Workspace: o.Workspace,
	})
	if err != nil {
		return view.View{}, fmt.Errorf("client: %w", err)
	}
	return view.View{Text: v.Text, Trunc: v.Trunc, Cut: v.Cut}, nil
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
	return r.publish(ctx, &event.Event{Kind: event.KindHeartbeat}, nil)
}

// End publishes the end of the run with the outcome the agent claims, and
// stops heartbeating. The run still receives decisions until Close.
func (r *Run) End(ctx context.Context, status event.Status) error {
	r.halt()
	return r.publish(ctx, &event.Event{Kind: event.KindRunEnd, Status: status}, nil)
}

// Round announces a parallel round: the calls with these ids, whose
// results the guard releases together, ordered by call id, in one settled
// decision once all are in or wait has passed (0: no deadline). Announce a
// round before making its calls.
func (r *Run) Round(ctx context.Context, calls []string, wait time.Duration) error {
	return r.publish(ctx, &event.Event{Kind: event.KindRound, Calls: calls, Wait: wait.Milliseconds()}, nil)
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
