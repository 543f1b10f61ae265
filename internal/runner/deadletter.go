package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// headerTruncated is set on a dead letter whose payload was cut to fit the
// server's payload limit; the full event stays in AGENT_EVENTS at the
// Guard-Sequence.
const headerTruncated = "Guard-Truncated"

// deadLetter is why an event goes to the dead letters. The event path
// returns it as its error; deadLettering turns it into a dead letter.
type deadLetter struct {
	reason streams.DeadReason
	cause  error
	reject bool   // the event broke the wire contract: reject it if it is a call
	guard  string // reason panic: the guard that panicked
	stack  []byte // reason panic: where
}

func (d *deadLetter) Error() string { return string(d.reason) + ": " + d.cause.Error() }
func (d *deadLetter) Unwrap() error { return d.cause }

// refuse returns the dead letter of an event that breaks the wire
// contract.
func refuse(reason streams.DeadReason, cause error) *deadLetter {
	return &deadLetter{reason: reason, cause: cause, reject: true}
}

// deadLettering wraps the event path, as watermill's PoisonQueue wraps a
// handler: an event the path refuses goes to the dead letters, and is
// then handled like any other: acked, kept, not retried. A call that broke
// the wire contract is also refused (path.refuseCall).
func (p *path) deadLettering(next handlerFunc) handlerFunc {
	return func(ctx context.Context, rec *record, s sink) error {
		err := next(ctx, rec, s)
		if err == nil {
			return nil
		}
		var dl *deadLetter
		if !errors.As(err, &dl) {
			return err
		}
		if err := s.deadLetter(ctx, rec, dl); err != nil || !dl.reject {
			return err
		}
		return p.refuseCall(ctx, rec, dl, s)
	}
}

// deadLetter publishes the event in rec to the dead letters.
func (l *live) deadLetter(ctx context.Context, rec *record, dl *deadLetter) error {
	l.dead.note(rec, dl)
	msg := nats.NewMsg(streams.DeadLetterSubject(dl.reason))
	msg.Header.Set(streams.HeaderReason, string(dl.reason))
	msg.Header.Set(streams.HeaderError, dl.cause.Error())
	msg.Header.Set(streams.HeaderSubject, rec.subject)
	msg.Header.Set(streams.HeaderSequence, strconv.FormatUint(rec.seq, 10))
	msg.Header.Set(jetstream.MsgIDHeader, "dlq."+strconv.FormatUint(rec.seq, 10))
	if dl.guard != "" {
		msg.Header.Set(streams.HeaderProcessor, dl.guard)
	}
	msg.Data = rec.data
	if room := l.maxPayload - 4096; len(msg.Data) > room {
		msg.Header.Set(headerTruncated, fmt.Sprintf("%d bytes, of which the first %d are here", len(msg.Data), room))
		msg.Data = msg.Data[:room]
	}
	_, err := l.pub.publish(ctx, msg)
	return err
}

// rateLimited publishes the dead letter of reason rate_limited that
// stands for recs, events of one run refused by its or its tenant's
// admission limit. It holds no event: they stay in AGENT_EVENTS.
func (l *live) rateLimited(ctx context.Context, recs []*record) error {
	first := recs[0]
	dl := &deadLetter{reason: streams.DeadRateLimited, cause: fmt.Errorf(
		"%d events of run %s/%s were over %s; the guards did not see them",
		len(recs), first.subj.Tenant, first.subj.Run, limitName(first.over))}
	l.dead.note(first, dl)
	msg := nats.NewMsg(streams.DeadLetterSubject(dl.reason))
	msg.Header.Set(streams.HeaderReason, string(dl.reason))
	msg.Header.Set(streams.HeaderError, dl.cause.Error())
	msg.Header.Set(streams.HeaderSubject, first.subject)
	msg.Header.Set(streams.HeaderSequences, sequences(recs))
	msg.Header.Set(streams.HeaderLimit, first.over)
	msg.Header.Set(jetstream.MsgIDHeader, "dlq.rl."+strconv.FormatUint(first.seq, 10))
	_, err := l.pub.publish(ctx, msg)
	return err
}

// limitName names the admission limit over says an event was over.
func limitName(over string) string {
	if over == overNewRuns {
		return "the tenant's admission limit on new runs"
	}
	return "the " + over + "'s admission limit"
}

// refuseCall rejects a dead-lettered call whose id can be read, so its
// agent need not wait for a verdict that would never come, and, unless it
// is a duplicate (a call the run may already have), tells the run's guards
// that the call was refused (processors.Chain.Refuse): a parallel round
// waiting for it settles. The decisions go to s with the Nats-Msg-Ids
// <tenant>.<run>.dlq.<seq>.<index>; a replay updates the run's state the
// same way and publishes nothing.
func (p *path) refuseCall(ctx context.Context, rec *record, dl *deadLetter, s sink) error {
	subj, err := streams.ParseStored(rec.subject)
	if err != nil || subj.Kind != event.KindCall.Token() {
		return nil
	}
	d, ok := deadCall(subj, rec.data)
	if !ok {
		return nil
	}
	d.Msg = fmt.Sprintf("the call event broke the wire contract and went to %s: %v", streams.DeadLetterSubject(dl.reason), dl.cause)
	run := &processors.Run{} // not active: the chain adds only the reject
	var e *entry
	if dl.reason != streams.DeadDuplicate {
		if err := p.runs.load(ctx, subj.Key); err != nil {
			return err
		}
		e = p.runs.cached(subj.Key)
		if err := p.runs.prepare(e); err != nil {
			return err
		}
		run = e.run
	}
	// The guards of an active run learn of the refusal, and may change its
	// state without a decision (a round counts the call, but settles only
	// with its last); a panic stops the run. Either way a checkpoint past
	// this event must write the run's snapshot.
	active := run.Status == processors.StatusActive
	poison := p.chain.refuse(run, &d, &p.out)
	if active {
		p.runs.touch(e)
	}
	prefix := d.Tenant + "." + d.Run + ".dlq." + strconv.FormatUint(rec.seq, 10) + "."
	if poison != nil {
		// The event is in the dead letters already, under its first reason.
		p.runs.log.Error("a guard panicked on a refused call; its run is stopped", "guard", poison.guard,
			"subject", rec.subject, "seq", rec.seq, "err", poison.cause, "stack", string(poison.stack))
	}
	return s.refused(ctx, &p.out, prefix)
}

// gap publishes the dead letter of reason gap: the stream no longer held
// what g says when partition p recovered. It holds no event; its
// Nats-Msg-Id makes a second report of the same gap, by another instance
// or after a crash, a duplicate.
func (l *live) gap(ctx context.Context, p int, g gap) error {
	msg := nats.NewMsg(streams.DeadLetterSubject(streams.DeadGap))
	msg.Header.Set(streams.HeaderReason, string(streams.DeadGap))
	msg.Header.Set(streams.HeaderError, fmt.Sprintf(
		"%s no longer holds %d of the stream sequences from %d to %d (expired, purged or damaged) that partition %d recovered over; "+
			"the state of its runs does not reflect those of its events that were among them",
		streams.EventStream, g.count, g.first, g.last, p))
	msg.Header.Set(streams.HeaderPartition, strconv.Itoa(p))
	msg.Header.Set(streams.HeaderFirst, strconv.FormatUint(g.first, 10))
	msg.Header.Set(streams.HeaderLast, strconv.FormatUint(g.last, 10))
	msg.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("gap.%d.%d.%d", p, g.first, g.last))
	_, err := l.pub.publish(ctx, msg)
	return err
}

// deadCall builds the reject for a dead-lettered call event from whatever
// of it can be read: the subject's tenant and run, and the payload's call
// id, seq and ts if they have the right types.
func deadCall(subj streams.Stored, data []byte) (event.Decision, bool) {
	call, seq, ts, ok := event.PeekCall(data)
	if !ok || event.CheckID(subj.Tenant) != nil || event.CheckID(subj.Run) != nil || event.CheckID(call) != nil {
		return event.Decision{}, false
	}
	return event.Decision{V: event.Version, Kind: event.Reject, Tenant: subj.Tenant, Run: subj.Run, Call: call,
		Seq: seq, TS: ts, Reason: event.ReasonInvalidEvent}, true
}
