package runner

import (
	"context"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
)

// observed wraps the live sink and tells the Observer what it published.
// Replayed events are not observed: they were when first handled.
type observed struct {
	sink
	obs Observer
}

func (o observed) emit(ctx context.Context, res *result) error {
	if err := o.sink.emit(ctx, res); err != nil {
		return err
	}
	o.obs.Applied(res.ev.Kind)
	o.decided(res.out)
	return nil
}

func (o observed) refused(ctx context.Context, out *processors.Out, prefix string) error {
	if err := o.sink.refused(ctx, out, prefix); err != nil {
		return err
	}
	o.decided(out)
	return nil
}

// decided tells the Observer of out's decisions.
func (o observed) decided(out *processors.Out) {
	for i := range out.Decisions {
		d := &out.Decisions[i]
		o.obs.Decided(d.Kind, d.Reason)
	}
}

func (o observed) deadLetter(ctx context.Context, rec *record, dl *deadLetter) error {
	if err := o.sink.deadLetter(ctx, rec, dl); err != nil {
		return err
	}
	o.obs.DeadLettered(dl.reason)
	if dl.reason == streams.DeadPanic {
		o.obs.Panicked(dl.guard)
	}
	return nil
}

func (o observed) rateLimited(ctx context.Context, recs []*record) error {
	if err := o.sink.rateLimited(ctx, recs); err != nil {
		return err
	}
	for range recs {
		o.obs.DeadLettered(streams.DeadRateLimited)
	}
	return nil
}
