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

// locateBatch is how many decisions Locate reads by direct get at a time.
const locateBatch = 256

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
// GUARD_CONTROL keeps decisions). It reads the run's output decisions by
// direct get, with no consumer to create.
func Locate(ctx context.Context, js jetstream.JetStream, tenant, run, call string) (event.Decision, error) {
	subj, err := streams.ControlSubject(tenant, run, event.Output)
	if err != nil {
		return event.Decision{}, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	if err := event.CheckID(call); err != nil {
		return event.Decision{}, fmt.Errorf("%w: call id %q: %v", ErrBadRequest, call, err)
	}
	gets, err := newDirectGets(js.Conn())
	if err != nil {
		return event.Decision{}, err
	}
	defer gets.close()
	var found, d event.Decision
	for seq, more := uint64(0), true; more; {
		msgs, pending, err := gets.get(ctx, streams.ControlStream, directRequest{Seq: seq, NextFor: subj, Batch: locateBatch})
		if err != nil {
			return event.Decision{}, err
		}
		for _, m := range msgs {
			if event.DecodeDecision(m.data, &d) == nil && d.Call == call && d.Ref != nil {
				found = d
			}
			seq = m.seq + 1
		}
		more = pending > 0 && len(msgs) > 0
	}
	if found.Ref == nil {
		return event.Decision{}, fmt.Errorf("%w: no output decision for call %s of run %s/%s", objectstore.ErrNotFound, call, tenant, run)
	}
	return found, nil
}
