package admin

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Locate returns the reference of the full output a call produced, from
// the output decision guard-consumer published for the call's result. It
// fails with objectstore.ErrNotFound when there is none (wrong ids, or
// older than GUARD_CONTROL keeps decisions).
func Locate(ctx context.Context, js jetstream.JetStream, tenant, run, call string) (event.OutputRef, error) {
	subj, err := streams.ControlSubject(tenant, run, event.Output)
	if err != nil {
		return event.OutputRef{}, err
	}
	if err := event.CheckID(call); err != nil {
		return event.OutputRef{}, fmt.Errorf("call id %q: %w", call, err)
	}
	oc, err := js.OrderedConsumer(ctx, streams.ControlStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return event.OutputRef{}, err
	}
	batch, err := oc.FetchNoWait(1 << 20)
	if err != nil {
		return event.OutputRef{}, err
	}
	var found *event.OutputRef
	for m := range batch.Messages() {
		var d event.Decision
		if event.DecodeDecision(m.Data(), &d) == nil && d.Call == call && d.Ref != nil {
			found = d.Ref
		}
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		return event.OutputRef{}, err
	}
	if found == nil {
		return event.OutputRef{}, fmt.Errorf("%w: no output decision for call %s of run %s/%s", objectstore.ErrNotFound, call, tenant, run)
	}
	return *found, nil
}
