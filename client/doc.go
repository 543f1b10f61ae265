// Package client is the Go side of the agent protocol: it publishes a run's
// events to AGENT_EVENTS and receives guard-consumer's decisions about it.
//
// A Client serves one tenant; Start begins a Run. Run.Call publishes a tool
// call and waits for its verdict; the wait has a deadline, and what happens
// when it passes is the client's FailMode: FailClosed (the default) refuses
// the call, FailOpen allows it. Either way Call also returns ErrNoVerdict, so
// the caller can tell a real verdict from a synthetic one.
//
// Advice (steer constraints) arrives on Run.Advice; hand it to the model
// before its next step. When the run is stopped, Run.Done is closed and
// Run.Stop says why; calls made after that are refused with the stop.
//
// Agents in other languages follow docs/wire.md instead.
package client
