package runner

import (
	"context"
	"log/slog"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// result is what applying one event produced.
type result struct {
	ev     *event.Event
	out    *processors.Out // the decisions and timers
	at     time.Time       // when the event reached the server; timers count from it
	inline bool            // a result whose output came inline: keep a copy if the model saw less
}

// sink takes the effects of handling events. The event path is the same
// whether they are published (live) or dropped (replay): recovery replays
// acked events, whose effects are stored already, into replay.
type sink interface {
	// emit publishes what applying an event decided.
	emit(ctx context.Context, res *result) error
	// deadLetter sends the event in rec to the dead letters.
	deadLetter(ctx context.Context, rec *record, dl *deadLetter) error
	// refused publishes what refusing a dead-lettered call decided: its
	// reject, and what the guards decided of it, with the Nats-Msg-Ids
	// <prefix><index>.
	refused(ctx context.Context, out *processors.Out, prefix string) error
	// rateLimited sends the events in recs, one run's over one admission
	// limit, to the dead letters as one.
	rateLimited(ctx context.Context, recs []*record) error
	// flush ends a batch: it publishes the timers the batch set.
	flush(ctx context.Context) error
}

// replay drops everything: the events it sees were handled before.
type replay struct{}

func (replay) emit(context.Context, *result) error                    { return nil }
func (replay) deadLetter(context.Context, *record, *deadLetter) error { return nil }
func (replay) refused(context.Context, *processors.Out, string) error { return nil }
func (replay) rateLimited(context.Context, []*record) error           { return nil }
func (replay) flush(context.Context) error                            { return nil }

// live publishes through the tenure's publisher, so an event is acked
// only once all it caused is stored.
type live struct {
	pub     *publisher
	log     *slog.Logger
	dead    *deadLog            // the dead letters' log lines, sampled
	purge   func(filter string) // cancels pending schedules, in the background
	outputs *objectstore.Store  // nil: results are not stored
	// purged waits until the purges of a run's timer, or of all its
	// timers, queued so far are served (Runner.purged).
	purged func(ctx context.Context, tenant, run, subj string) error
	// seen holds the digests of the outputs this tenure stored. It lasts
	// a tenure, as the publishes that stored them do: one that failed
	// ends the tenure, and the next redoes its event, copy and all.
	seen       stored
	maxPayload int
	timers     []timer // timers the current batch set or cancelled
	ended      []timer // runs the current batch ended

	msg   nats.Msg // a decision being published; nats.go copies it out as it publishes
	msgID []string // its Nats-Msg-Id header
	id    []byte   // scratch for the Nats-Msg-Id
}

// emit stores the copy of an inline output the model saw less of, notes
// the timers, and publishes the decisions, each with the deterministic
// Nats-Msg-Id <tenant>.<run>.<seq>.<index> (decisionID).
func (l *live) emit(ctx context.Context, res *result) error {
	if res.inline {
		if err := l.keepOutput(ctx, res); err != nil {
			return err
		}
	}
	l.collectTimers(res)
	ev := res.ev
	for i := range res.out.Decisions {
		l.id = decisionID(l.id[:0], ev, i)
		if err := l.publish(ctx, &res.out.Decisions[i], l.id); err != nil {
			return err
		}
	}
	return nil
}

// refused publishes out's decisions, each with the Nats-Msg-Id
// <prefix><index>.
func (l *live) refused(ctx context.Context, out *processors.Out, prefix string) error {
	for i := range out.Decisions {
		l.id = strconv.AppendInt(append(l.id[:0], prefix...), int64(i), 10)
		if err := l.publish(ctx, &out.Decisions[i], l.id); err != nil {
			return err
		}
	}
	return nil
}

// publish publishes d on its control subject with the Nats-Msg-Id id.
func (l *live) publish(ctx context.Context, d *event.Decision, id []byte) error {
	subj, err := streams.ControlSubject(d.Tenant, d.Run, d.Kind)
	if err != nil {
		return err // cannot happen: the ids were checked
	}
	if l.msg.Header == nil {
		l.msgID = make([]string, 1)
		l.msg.Header = nats.Header{jetstream.MsgIDHeader: l.msgID}
	}
	l.msg.Subject = subj
	l.msg.Data = event.AppendDecision(l.msg.Data[:0], d)
	l.msgID[0] = string(id)
	_, err = l.pub.publish(ctx, &l.msg)
	return err
}

// decisionID appends the Nats-Msg-Id of the i-th decision for ev to b:
// <tenant>.<run>.<seq>.<i> for an agent event, and
// <tenant>.<run>.timer.<name>.<gen>.<i> for a timer event, which has no
// seq.
func decisionID(b []byte, ev *event.Event, i int) []byte {
	b = append(append(append(b, ev.Tenant...), '.'), ev.Run...)
	if ev.Kind == event.KindTimer {
		b = append(append(append(b, ".timer."...), ev.Timer...), '.')
		b = strconv.AppendInt(b, ev.Gen, 10)
	} else {
		b = strconv.AppendInt(append(b, '.'), ev.Seq, 10)
	}
	return strconv.AppendInt(append(b, '.'), int64(i), 10)
}
