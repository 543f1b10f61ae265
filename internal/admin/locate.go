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

// ErrBadRequest marks a request whose tenant, run or call id is not one.
var ErrBadRequest = errors.New("admin: bad request")

// Output returns the full output a call produced and its reference. The
// output decision of the call's result names it; guard-consumer copied it
// into the object store unless the decision's view is the whole output
// (docs/wire.md §5.4), in which case the view is returned.
func Output(ctx context.Context, js jetstream.JetStream, outputs *objectstore.Store, tenant, run, call string) ([]byte, event.OutputRef, error) {
	d, err := Locate(ctx, js, tenant, run, call)
	if err != nil {
		return nil, event.OutputRef{}, err
	}
	if whole := []byte(d.View); event.Digest(whole) == d.Ref.Digest {
		return whole, *d.Ref, nil
	}
	data, err := outputs.Get(ctx, tenant, *d.Ref)
	return data, *d.Ref, err
}

// Locate returns the output decision guard-consumer published for the
// result of a call, which names its full output in Ref. It fails with
// objectstore.ErrNotFound when there is none (wrong ids, or older than
// GUARD_CONTROL keeps decisions).
func Locate(ctx context.Context, js jetstream.JetStream, tenant, run, call string) (event.Decision, error) {
	subj, err := streams.ControlSubject(tenant, run, event.Output)
	if err != nil {
		return event.Decision{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if err := event.CheckID(call); err != nil {
		return event.Decision{}, fmt.Errorf("%w: call id %q: %v", ErrBadRequest, call, err)
	}
	oc, err := js.OrderedConsumer(ctx, streams.ControlStream, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subj}})
	if err != nil {
		return event.Decision{}, err
	}
	batch, err := oc.FetchNoWait(1 << 20)
	if err != nil {
		return event.Decision{}, err
	}
	var found, d event.Decision
	for m := range batch.Messages() {
		if event.DecodeDecision(m.Data(), &d) == nil && d.Call == call && d.Ref != nil {
			found = d
		}
	}
	if err := batch.Error(); err != nil && !errors.Is(err, jetstream.ErrNoMessages) {
		return event.Decision{}, err
	}
	if found.Ref == nil {
		return event.Decision{}, fmt.Errorf("%w: no output decision for call %s of run %s/%s", objectstore.ErrNotFound, call, tenant, run)
	}
	return found, nil
}
