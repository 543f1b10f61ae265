package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
)

// storedSize bounds the outputs a partition remembers having stored.
const storedSize = 4096

// stored remembers recently stored outputs, by tenant and digest, and
// when, so a repeated output (the same file read by many runs) is not
// written again until it is old enough to need refreshing before it
// expires.
type stored struct {
	ring [storedSize]string
	next int
	set  map[string]time.Time
}

func (s *stored) fresh(d string, maxAge time.Duration) bool {
	at, ok := s.set[d]
	return ok && time.Since(at) < maxAge/2
}

func (s *stored) add(d string) {
	if s.set == nil {
		s.set = make(map[string]time.Time, storedSize)
	}
	if _, ok := s.set[d]; !ok {
		delete(s.set, s.ring[s.next])
		s.ring[s.next] = d
		s.next = (s.next + 1) % storedSize
	}
	s.set[d] = time.Now()
}

// errBadRef marks a result whose reference the store cannot honour: the
// event is dead-lettered, not retried.
var errBadRef = errors.New("runner: the result's output reference is not in " + objectstore.Stream)

// resolveOutput makes a result carry its full output in Out and its
// reference in Ref, whichever way it came: it fetches an output sent by
// reference, and names one sent inline by its digest. The guards then see
// the output itself, whatever its size. An inline output is stored, if at
// all, by keepOutput once the guards have decided.
func resolveOutput(ctx context.Context, outputs *objectstore.Store, ev *event.Event) error {
	if ev.Ref == nil {
		data := []byte(ev.Out)
		ev.Ref = &event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
		return nil
	}
	data, err := outputs.Get(ctx, ev.Tenant, *ev.Ref)
	switch {
	case errors.Is(err, objectstore.ErrNotFound) || errors.Is(err, objectstore.ErrDigestMismatch) || errors.Is(err, objectstore.ErrTooLarge):
		return fmt.Errorf("%w: %v (put the output in the store before publishing its reference)", errBadRef, err)
	case err != nil:
		return err
	}
	ev.Out = string(data)
	return nil
}

// keepOutput stores the full copy of a result's output, sent inline, when the
// model was shown less than all of it: when the output decision's view is
// not the output byte for byte (truncated, or its paths made relative).
// A view that is the whole output is its own copy, in GUARD_CONTROL, and
// writing it again would cost two object store messages per result for
// nothing (docs/decisions/0006-outputs.md). The copy is published with the
// batch, so the event is acked only once it is stored.
func (l *live) keepOutput(ctx context.Context, res *result) error {
	ev := res.ev
	if !shortened(res.out.Decisions, ev.Out) {
		return nil
	}
	st := l.outputs
	key := ev.Tenant + " " + ev.Ref.Digest // outputs are stored per tenant
	if l.seen.fresh(key, st.MaxAge()) {
		return nil
	}
	msgs, _, err := st.Messages(ev.Tenant, []byte(ev.Out))
	if err != nil {
		return err
	}
	for _, m := range msgs {
		if _, err := l.pub.publish(ctx, m); err != nil {
			return err
		}
	}
	l.seen.add(key)
	return nil
}

// shortened reports whether an output decision among ds shows the model
// something other than the full output.
func shortened(ds []event.Decision, full string) bool {
	for i := range ds {
		if ds[i].Kind == event.Output && ds[i].View != full {
			return true
		}
	}
	return false
}
