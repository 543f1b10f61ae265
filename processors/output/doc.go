// Package output bounds what the model sees of each tool result. For every
// result it emits one output decision carrying the bounded view of the full
// output (objectstore/view), the output's reference in the object store
// (digest and size) and the pagination metadata the reference designs ask
// for: lines_shown, lines_remaining, has_more. A view that does not reach
// the end of the output ends in a deterministic truncation marker naming
// the digest, so the full output can always be fetched.
//
// Caps come from the policy (max_lines 500 and max_bytes 32 KiB by
// default), with per-tool overrides; paths under the run's workspace
// (run_start "ws") are made workspace-relative. A successful result of a
// search tool whose output is empty, or only whitespace, also draws a
// zero_results advice: list the directory, try other names, or broaden the
// filter.
//
// # The full output
//
// The runner hands the processor the full output in the result's Out, and
// its reference in Ref when the agent sent the output by reference (the
// runner fetches it from the object store). Without Ref the processor
// computes the digest itself. A result whose Ref does not match its Out in
// size is one whose output the runner could not load: its output decision
// carries the reference and a short note instead of a view, and no
// zero-results advice, since nothing is known of its content.
//
// # The tool of a result
//
// Results repeat their call's tool only optionally (docs/wire.md), so the
// processor remembers the tool of each recent call to a tool with caps of
// its own or a search tool, up to MaxPending calls, and forgets it at the
// call's result; for other calls, and when it has forgotten, it uses the
// result's own tool field. Its state is that and the workspace: nothing
// grows with the run.
//
// Like every processor, it is a pure function of its state and the event.
package output
