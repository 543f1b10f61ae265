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
	// ErrNotProvisioned: no stream takes the events; guard-consumer has not
	// provisioned this server.
	ErrNotProvisioned = errors.New("client: no stream for agent events (start guard-consumer against this server first)")
)
