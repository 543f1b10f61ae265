package client

import "sync/atomic"

// Stats counts what a client did to deliver a run's events and decisions
// across lost connections, and what it refused.
type Stats struct {
	// Republished counts events sent again, with the same Nats-Msg-Id,
	// because the connection dropped or an attempt went unanswered.
	Republished uint64
	// CatchUps counts the catch-ups on a run's decisions from
	// GUARD_CONTROL that completed after a reconnect.
	CatchUps uint64
	// Recovered counts decisions a catch-up delivered that the
	// subscription had missed.
	Recovered uint64
	// Ignored counts decisions the trust rules refused: for another run,
	// for a call the run did not publish, or a verdict after the call's
	// first final one.
	Ignored uint64
	// Abandoned counts calls reported as abandoned: the client gave up on
	// them before they ran.
	Abandoned uint64
}

// counters holds a client's Stats.
type counters struct {
	republished, catchUps, recovered, ignored, abandoned atomic.Uint64
}

// Stats returns the client's counts so far.
func (c *Client) Stats() Stats {
	s := &c.stats
	return Stats{
		Republished: s.republished.Load(),
		CatchUps:    s.catchUps.Load(),
		Recovered:   s.recovered.Load(),
		Ignored:     s.ignored.Load(),
		Abandoned:   s.abandoned.Load(),
	}
}
