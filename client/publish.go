package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

const (
	// publishAttempt bounds the wait for one attempt's acknowledgement.
	// An attempt still unanswered then, or cut short by a reconnect, is
	// sent again with the same Nats-Msg-Id.
	publishAttempt = 2 * time.Second
	// retryMin and retryMax bound the backoff between attempts that
	// failed at once, and between catch-ups that failed.
	retryMin = 20 * time.Millisecond
	retryMax = time.Second
)

// publish stamps ev with the run's envelope and next sequence and publishes
// it; stamped, if not nil, runs under the run's lock once ev has its
// sequence, before it is first sent. Publishes are serialised, so events
// reach the stream in seq order.
func (r *Run) publish(ctx context.Context, ev *event.Event, stamped func()) error {
	r.pub.Lock()
	defer r.pub.Unlock()
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return ErrClosed
	}
	ev.V, ev.Tenant, ev.Run, ev.TS = event.Version, r.c.tenant, r.id, r.c.opts.now().UnixMilli()
	// Advance even if the publish fails: it may have been stored, and a
	// gap in the sequence is allowed where a reuse is not.
	r.seq++
	ev.Seq = r.seq
	if stamped != nil {
		stamped()
	}
	r.mu.Unlock()
	return r.send(ctx, ev)
}

// send publishes ev and waits until the stream has stored it. Until then,
// and until ctx ends, it sends the same bytes with the same Nats-Msg-Id
// again whenever the connection comes back or an attempt goes unanswered:
// the stream keeps one copy and acknowledges the others as duplicates.
func (r *Run) send(ctx context.Context, ev *event.Event) error {
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	data := event.AppendEvent(nil, ev)
	id := ev.Tenant + "." + ev.Run + "." + strconv.FormatInt(ev.Seq, 10) + "." + r.c.nonce
	wait := retryMin
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			r.c.stats.republished.Add(1)
		}
		epoch := r.link.current()
		actx, cancel := context.WithTimeout(ctx, publishAttempt)
		stop := context.AfterFunc(epoch, cancel)
		_, err := r.c.js.PublishMsg(actx, &nats.Msg{Subject: subj, Data: data, Header: nats.Header{}},
			jetstream.WithMsgID(id), jetstream.WithRetryAttempts(0))
		stop()
		cancel()
		if err == nil {
			r.c.provisioned.Store(true)
			r.link.touch(r.c.reconnects(), time.Now())
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("client: publishing %s: %w (last attempt: %v)", ev, ctx.Err(), err)
		}
		switch retry(err, r.c.provisioned.Load()) {
		case giveUp:
			return fmt.Errorf("client: publishing %s: %w", ev, err)
		case unprovisioned:
			return fmt.Errorf("%w: publishing to %s: %v", ErrNotProvisioned, subj, err)
		}
		// Send again at once when the connection comes back; while it is
		// down, a copy would only wait in the reconnect buffer.
		pause := wait
		if r.c.nc.Status() != nats.CONNECTED {
			pause = publishAttempt
		}
		t := time.NewTimer(pause)
		select {
		case <-ctx.Done():
		case <-epoch.Done():
		case <-t.C:
			wait = min(2*wait, retryMax)
		}
		t.Stop()
	}
}

// errDuplicateInProcess is nats-server's JSStreamDuplicateMessageConflict,
// "duplicate message id is in process", which nats.go has no name for.
const errDuplicateInProcess jetstream.ErrorCode = 10158

// failure is what to do about a failed publish attempt.
type failure uint8

const (
	again         failure = iota // the event may not be stored: send it again
	giveUp                       // the stream refused it, or the connection is closed for good
	unprovisioned                // no stream ever took this client's events
)

// retry judges a failed attempt. Silence (a timeout, or an attempt cut
// short by a reconnect) and an unreachable stream are worth another try;
// "no responders" is, once a stream of this client's has stored an event,
// since it then means the server is coming back.
func retry(err error, provisioned bool) failure {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, jetstream.ErrNoStreamResponse), errors.Is(err, nats.ErrNoResponders):
		if !provisioned {
			return unprovisioned
		}
		return again
	case errors.Is(err, nats.ErrConnectionClosed), errors.Is(err, nats.ErrConnectionDraining):
		return giveUp
	case errors.As(err, &api):
		// 503: the stream is between leaders. 10158: the stream is still
		// storing an earlier attempt of this event (a slow or busy
		// cluster); once it has, this one is acknowledged as a duplicate.
		if api.Code == http.StatusServiceUnavailable || api.ErrorCode == errDuplicateInProcess {
			return again
		}
		return giveUp
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled),
		errors.Is(err, nats.ErrTimeout), errors.Is(err, nats.ErrReconnectBufExceeded),
		errors.Is(err, nats.ErrDisconnected):
		return again
	}
	return giveUp
}
