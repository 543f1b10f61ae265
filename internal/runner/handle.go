package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
)

// handlerFunc handles one stored event, sending its effects to s. It
// returns an error only when NATS fails, or, for the wrappers to act on, a
// *deadLetter.
type handlerFunc func(ctx context.Context, rec *record, s sink) error

// path is the event path: decode → apply → emit. It is the same for
// events consumed and events replayed; only the sink differs.
type path struct {
	runs     *runs
	chain    recoverer
	outputs  *objectstore.Store // nil: outputs sent by reference are not fetched
	maxBytes int
	// read charges the bytes of an output a result referred to, which
	// the path read from the store, to the run's and its tenant's
	// admission (tenure.chargeRead).
	read func(run *processors.Run, rec *record, bytes int64)
	ev   event.Event    // the event being handled, reused
	out  processors.Out // what it decided, reused
	res  result
}

// step decodes the event in rec, applies it to its run, and emits what it
// decided. An event the run has applied already changes nothing.
func (p *path) step(ctx context.Context, rec *record, s sink) error {
	ev := &p.ev
	subj, err := decode(rec, p.maxBytes, ev)
	if err != nil {
		return err
	}
	e := p.runs.cached(subj.Key)
	if e == nil {
		if err := p.runs.load(ctx, subj.Key); err != nil {
			return err
		}
		e = p.runs.cached(subj.Key)
	}
	if rec.seq <= e.run.Applied {
		return nil // a redelivery of an event already applied
	}
	p.res = result{ev: ev, out: &p.out, at: rec.at}
	if ev.Kind == event.KindResult && p.outputs != nil {
		p.res.inline = ev.Ref == nil
		if err := resolveOutput(ctx, p.outputs, ev); errors.Is(err, errBadRef) {
			return refuse(streams.DeadInvalid, err)
		} else if err != nil {
			return err
		}
		if !p.res.inline {
			p.read(e.run, rec, ev.Ref.Size)
		}
	}
	if err := p.runs.prepare(e); err != nil {
		return err
	}
	poison := p.chain.apply(e.run, ev, &p.out)
	if poison == nil && p.out.Duplicate() {
		return refuse(streams.DeadDuplicate, fmt.Errorf("seq %d is not above %d, the last applied for this run", ev.Seq, e.run.Seq))
	}
	e.run.Applied = rec.seq
	p.runs.touch(e)
	if poison != nil {
		p.res.inline = false
		if err := s.emit(ctx, &p.res); err != nil {
			return err
		}
		return poison
	}
	return s.emit(ctx, &p.res)
}
