package client

import "errors"

var (
	// ErrNoVerdict: no verdict arrived before the deadline; the verdict
	// returned with it was made by the client's FailMode.
	ErrNoVerdict = errors.New("client: no verdict before the deadline")
	// ErrClosed: the run was closed.
	ErrClosed = errors.New("client: run closed")
	// ErrStopped: the run was stopped by a guard while waiting.
	ErrStopped = errors.New("client: run stopped")
	// ErrCallReused: the call id was already used in this run; call ids
	// are unique within a run.
	ErrCallReused = errors.New("client: call id already used in this run")
	// ErrUnknownCall: the run published no call with this id, or has
	// forgotten it (a run remembers its last 1024 calls).
	ErrUnknownCall = errors.New("client: no such call in this run")
	// ErrNotProvisioned: no stream takes the events; guard-consumer has not
	// provisioned this server.
	ErrNotProvisioned = errors.New("client: no stream for agent events (start guard-consumer against this server first)")
)
