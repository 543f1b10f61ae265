package runner

import (
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// decode reads the event in rec into ev and checks it against the wire
// contract: its subject, size, encoding, fields, and that the subject and
// payload agree, and returns the parsed subject. An event that breaks it
// gets a *deadLetter error.
func decode(rec *record, maxBytes int, ev *event.Event) (streams.Stored, error) {
	data := rec.data
	subj := rec.subj
	if !rec.parsed {
		var err error
		if subj, err = streams.ParseStored(rec.subject); err != nil {
			return subj, refuse(streams.DeadSubject, err)
		}
	}
	if len(data) > maxBytes {
		return subj, refuse(streams.DeadOversize,
			fmt.Errorf("event is %d bytes, the limit is %d; send large outputs by reference", len(data), maxBytes))
	}
	if err := event.DecodeEvent(data, ev); err != nil {
		return subj, refuse(decodeReason(err), err)
	}
	if err := ev.Validate(); err != nil {
		return subj, refuse(streams.DeadInvalid, err)
	}
	if ev.Tenant != subj.Tenant || ev.Run != subj.Run || ev.Kind.Token() != subj.Kind {
		return subj, refuse(streams.DeadSubject, fmt.Errorf(
			"the payload is a %s of %s/%s but the subject says %s of %s/%s", ev.Kind, ev.Tenant, ev.Run, subj.Kind, subj.Tenant, subj.Run))
	}
	if ev.Kind == event.KindTimer && rec.header.Get(jetstream.SchedulerHeader) != scheduledBy(ev) {
		return subj, refuse(streams.DeadSubject, fmt.Errorf(
			"timer events come only from guard-consumer's schedules on %s; agents must not publish them", scheduledBy(ev)))
	}
	return subj, nil
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
