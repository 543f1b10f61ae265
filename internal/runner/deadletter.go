package runner

import (
	"fmt"
	"strconv"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// headerTruncated is set on a dead letter whose payload was cut to fit the
// server's payload limit; the full event stays in AGENT_EVENTS at the
// Guard-Sequence.
const headerTruncated = "Guard-Truncated"

// deadLetter publishes the event in m, with stream sequence seq, to the
// dead letters with reason and cause. The event is then acked with its
// batch: it is kept, not retried.
func (p *partition) deadLetter(m jetstream.Msg, seq uint64, reason streams.DeadReason, cause error) error {
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
	f, err := p.r.js.PublishMsgAsync(msg, jetstream.WithMsgID("dlq."+strconv.FormatUint(seq, 10)))
	if err != nil {
		return err
	}
	p.futs = append(p.futs, f)
	return nil
}
