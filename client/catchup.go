package client

import (
	"context"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/nats-io/nats.go"
)

const (
	// catchUpMargin is how long before the run's last sign of life a
	// catch-up starts reading, for the skew between the client's clock
	// and the server's; decisions read twice are dropped by Nats-Msg-Id.
	catchUpMargin = 2 * time.Second
	// catchUpTimeout bounds one catch-up; a failed one is tried again.
	catchUpTimeout = 10 * time.Second
)

// watch follows the connection until the run is closed. After each
// reconnect it catches up on the decisions the run may have missed while
// the subscription was gone, and tries again, with backoff, until a
// catch-up succeeds.
func (r *Run) watch(status chan nats.Status) {
	defer r.c.nc.RemoveStatusListener(status)
	retry := time.NewTimer(time.Hour)
	retry.Stop()
	defer retry.Stop()
	wait := retryMin
	for {
		select {
		case <-r.gone:
			return
		case st, ok := <-status:
			if !ok || st == nats.CLOSED {
				return
			}
		case <-retry.C:
		}
		r.link.observe(r.c.reconnects())
		behind, since, n := r.link.gap()
		if !behind || r.c.nc.Status() != nats.CONNECTED {
			continue
		}
		if err := r.catchUp(since, n); err != nil {
			retry.Reset(wait)
			wait = min(2*wait, retryMax)
			continue
		}
		wait = retryMin
	}
}

// catchUp asks guard-consumer's agent API for the run's decisions that
// GUARD_CONTROL stored from just before since, and hands each to the run as
// if the subscription had delivered it: those it already has are dropped.
// The agent API serves only the caller's own tenant, which is why the
// client reads through it rather than creating a consumer: an agent
// identity has no JetStream API rights (docs/security.md). The
// subscription, renewed before, delivers everything after. It covers the
// link up to reconnects.
func (r *Run) catchUp(since time.Time, reconnects uint64) error {
	ctx, cancel := context.WithTimeout(context.Background(), catchUpTimeout)
	defer cancel()
	req := agentapi.DecisionsRequest{Run: r.id, Since: since.Add(-catchUpMargin).UnixMilli()}
	for first := true; ; first = false {
		reply, err := agentapi.GetDecisions(ctx, r.c.nc, r.c.tenant, req)
		if err != nil {
			return fmt.Errorf("client: catching up on %s: %w", r.filter, err)
		}
		// GUARD_CONTROL is stamped by the server's clock. If guard-consumer's
		// runs behind the client's by more than the margin allows, start
		// again by its clock.
		if skew := time.Until(time.UnixMilli(reply.Now)); first && skew < -catchUpMargin/2 {
			req.Since += skew.Milliseconds()
			continue
		}
		for _, d := range reply.Decisions {
			r.deliver(d.MsgID, d.Data, true)
		}
		if !reply.More || len(reply.Decisions) == 0 {
			break
		}
		req.After = reply.Decisions[len(reply.Decisions)-1].Seq
	}
	r.c.stats.catchUps.Add(1)
	r.link.observe(r.c.reconnects())
	r.link.caughtUp(reconnects)
	return nil
}
