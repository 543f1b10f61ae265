package runner

import (
	"context"
	"fmt"
	"math"
	"strconv"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/vmihailenco/msgpack/v5"
)

// headerTruncated is set on a dead letter whose payload was cut to fit the
// server's payload limit; the full event stays in AGENT_EVENTS at the
// Guard-Sequence.
const headerTruncated = "Guard-Truncated"

// deadLetter publishes the event in m, with stream sequence seq and parsed
// subject subj, to the dead letters with reason and cause. The event is
// then acked with its batch: it is kept, not retried. A dead-lettered call
// whose id can be read is also rejected, so its agent need not wait for a
// verdict that would never come.
func (p *partition) deadLetter(ctx context.Context, m jetstream.Msg, seq uint64, subj streams.Stored, reason streams.DeadReason, cause error) error {
	if p.replay {
		return nil // dead-lettered when it was first handled
	}
	p.log.Warn("dead letter", "reason", reason, "subject", m.Subject(), "seq", seq, "err", cause)
	msg := nats.NewMsg(streams.DeadLetterSubject(reason))
	msg.Header.Set(streams.HeaderReason, string(reason))
	msg.Header.Set(streams.HeaderError, cause.Error())
	msg.Header.Set(streams.HeaderSubject, m.Subject())
	msg.Header.Set(streams.HeaderSequence, strconv.FormatUint(seq, 10))
	msg.Data = m.Data()
	if room := int(p.r.nc.MaxPayload()) - 4096; len(msg.Data) > room {
		msg.Header.Set(headerTruncated, fmt.Sprintf("%d bytes, of which the first %d are here", len(msg.Data), room))
		msg.Data = msg.Data[:room]
	}
	f, err := p.publishAsync(ctx, msg, jetstream.WithMsgID("dlq."+strconv.FormatUint(seq, 10)))
	if err != nil {
		return err
	}
	p.track(f)
	if subj.Kind != event.KindCall.Token() {
		return nil
	}
	d, ok := deadCall(subj, m.Data())
	if !ok {
		return nil
	}
	d.Msg = fmt.Sprintf("the call event broke the wire contract and went to %s: %v", streams.DeadLetterSubject(reason), cause)
	return p.publish(ctx, &d, d.Tenant+"."+d.Run+".dlq."+strconv.FormatUint(seq, 10))
}

// deadCall builds the reject for a dead-lettered call event from whatever
// of it can be read: the subject's tenant and run, and the payload's call
// id, seq and ts if they have the right types.
func deadCall(subj streams.Stored, data []byte) (event.Decision, bool) {
	var m map[string]any
	if msgpack.Unmarshal(data, &m) != nil {
		return event.Decision{}, false
	}
	call, _ := m["call"].(string)
	if event.CheckID(subj.Tenant) != nil || event.CheckID(subj.Run) != nil || event.CheckID(call) != nil {
		return event.Decision{}, false
	}
	d := event.Decision{V: event.Version, Kind: event.Reject, Tenant: subj.Tenant, Run: subj.Run, Call: call, Reason: event.ReasonInvalidEvent}
	d.Seq, d.TS = asInt(m["seq"]), asInt(m["ts"])
	return d, true
}

// asInt returns v as an int64 if it is a non-negative msgpack integer that
// fits one (a generic decode yields the narrowest Go type), else 0.
func asInt(v any) int64 {
	var n int64
	switch x := v.(type) {
	case int8:
		n = int64(x)
	case int16:
		n = int64(x)
	case int32:
		n = int64(x)
	case int64:
		n = x
	case uint8:
		n = int64(x)
	case uint16:
		n = int64(x)
	case uint32:
		n = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return 0
		}
		n = int64(x)
	}
	return max(n, 0)
}
