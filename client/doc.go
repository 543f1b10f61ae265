// Package client is the Go side of the agent protocol: it publishes a run's
// events to AGENT_EVENTS and receives guard-consumer's decisions about it.
//
// A Client serves one tenant; Start begins a Run. Run.Call publishes a tool
// call and waits for its verdict; the wait has a deadline, counted from the
// call's acknowledgement, and what happens when it passes is the client's
// FailMode: FailClosed (the default) refuses the call, FailOpen allows it.
// Either way Call also returns ErrNoVerdict, so the caller can tell a real
// verdict from a synthetic one.
//
// # Abandoned calls
//
// A call the client gives up on before it runs (a fail-closed deadline, the
// context of Call ending, a failed publish) is reported on the wire as an
// abandoned result, never as the tool's failure, so the guards release it
// without counting it against the agent. Run.Abandon reports a call the
// agent itself will not run, such as a deferred call it stops waiting for.
//
// # Decisions it trusts
//
// A run takes in only decisions about itself: a verdict only for a call it
// published, only the first final verdict of each call, after a defer only
// its release, and a stop only if it names no call or one of the run's
// (docs/wire.md §5.7). Stats counts what it refused.
//
// # Reconnects
//
// Give the client a connection that reconnects (nats.MaxReconnects(-1)).
// Each event is sent again, with the same Nats-Msg-Id, until the stream
// stores it or the context ends; the stream keeps one copy. After a
// reconnect each run catches up on the decisions it missed from
// GUARD_CONTROL, through a short-lived consumer filtered on its control
// subjects, so a wait for a verdict survives the reconnect within its
// deadline (docs/wire.md §5.8).
//
// # What a run reports
//
// Besides its calls and their results, a run reports its LLM steps
// (Run.Step, with a digest of the assistant's text for the monologue
// detector), user turns (Run.Turn) and context compactions
// (Run.Compaction), which the policy's detectors count or reset on. A
// resume is an operator's act, not the agent's, and has no method here.
//
// Advice (steer constraints) arrives on Run.Advice; hand it to the model
// before its next step. When the run is stopped, Run.Done is closed and
// Run.Stop says why; calls made after that are refused with the stop.
//
// Agents in other languages follow docs/wire.md instead.
package client
