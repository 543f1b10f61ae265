package runner

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// handle applies one event, or sends it to the dead letters. It returns an
// error only when NATS fails.
func (p *partition) handle(ctx context.Context, m jetstream.Msg) error {
	meta, err := m.Metadata()
	if err != nil {
		return fmt.Errorf("runner: message without JetStream metadata: %w", err)
	}
	if err := p.handleAt(ctx, m, meta); err != nil {
		return err
	}
	p.handled = meta.Sequence.Stream
	return nil
}

func (p *partition) handleAt(ctx context.Context, m jetstream.Msg, meta *jetstream.MsgMetadata) error {
	seq, data := meta.Sequence.Stream, m.Data()
	subj, err := streams.ParseStored(m.Subject())
	if err != nil {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadSubject, err)
	}
	if len(data) > p.r.cfg.MaxEventBytes {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadOversize,
			fmt.Errorf("event is %d bytes, the limit is %d; send large outputs by reference", len(data), p.r.cfg.MaxEventBytes))
	}
	ev := &p.ev
	if err := event.DecodeEvent(data, ev); err != nil {
		return p.deadLetter(ctx, m, seq, subj, decodeReason(err), err)
	}
	if err := ev.Validate(); err != nil {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadInvalid, err)
	}
	if ev.Tenant != subj.Tenant || ev.Run != subj.Run || ev.Kind.Token() != subj.Kind {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadSubject, fmt.Errorf(
			"the payload is a %s of %s/%s but the subject says %s of %s/%s", ev.Kind, ev.Tenant, ev.Run, subj.Kind, subj.Tenant, subj.Run))
	}
	if ev.Kind == event.KindTimer && m.Headers().Get(jetstream.SchedulerHeader) != scheduledBy(ev) {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadSubject, fmt.Errorf(
			"timer events come only from guard-consumer's schedules on %s; agents must not publish them", scheduledBy(ev)))
	}

	e, err := p.load(ctx, streams.RunKey(ev.Tenant, ev.Run))
	if err != nil {
		return err
	}
	if seq <= e.run.Applied {
		return nil // a redelivery of an event already applied
	}
	inline := false
	if ev.Kind == event.KindResult && p.r.outputs != nil {
		inline = ev.Ref == nil
		if err := p.resolveOutput(ctx, ev); errors.Is(err, errBadRef) {
			return p.deadLetter(ctx, m, seq, subj, streams.DeadInvalid, err)
		} else if err != nil {
			return err
		}
	}
	p.r.chain.Apply(e.run, ev, &p.out)
	if p.out.Duplicate() {
		return p.deadLetter(ctx, m, seq, subj, streams.DeadDuplicate,
			fmt.Errorf("seq %d is not above %d, the last applied for this run", ev.Seq, e.run.Seq))
	}
	if inline {
		if err := p.keepOutput(ctx, ev); err != nil {
			return err
		}
	}
	e.run.Applied = seq
	p.touch(e)
	p.collectTimers(ev, meta.Timestamp)
	prefix := decisionIDPrefix(ev)
	for i := range p.out.Decisions {
		if err := p.publish(ctx, &p.out.Decisions[i], prefix+strconv.Itoa(i)); err != nil {
			return err
		}
	}
	return nil
}

// decisionIDPrefix returns the Nats-Msg-Id of the decisions for ev, less
// their index: <tenant>.<run>.<seq>. for an agent event, and
// <tenant>.<run>.timer.<name>.<gen>. for a timer event, which has no seq.
func decisionIDPrefix(ev *event.Event) string {
	if ev.Kind == event.KindTimer {
		return ev.Tenant + "." + ev.Run + ".timer." + ev.Timer + "." + strconv.FormatInt(ev.Gen, 10) + "."
	}
	return ev.Tenant + "." + ev.Run + "." + strconv.FormatInt(ev.Seq, 10) + "."
}

// publish publishes d on its control subject with the given Nats-Msg-Id.
func (p *partition) publish(ctx context.Context, d *event.Decision, msgID string) error {
	if p.replay {
		return nil
	}
	subj, err := streams.ControlSubject(d.Tenant, d.Run, d.Kind)
	if err != nil {
		return err // cannot happen: the ids were checked
	}
	msg := nats.NewMsg(subj)
	msg.Data = event.AppendDecision(nil, d)
	f, err := p.publishAsync(ctx, msg, jetstream.WithMsgID(msgID))
	if err != nil {
		return err
	}
	p.track(f)
	return nil
}

// decodeReason maps a decode error to its dead-letter reason.
func decodeReason(err error) streams.DeadReason {
	switch {
	case errors.Is(err, event.ErrWrongType):
		return streams.DeadWrongType
	case errors.Is(err, event.ErrVersion):
		return streams.DeadVersion
	case errors.Is(err, event.ErrInvalid):
		return streams.DeadInvalid
	}
	return streams.DeadUndecodable
}
