package runner

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/nats-io/nats.go"
)

// storedSize bounds the digests a partition remembers having stored.
const storedSize = 4096

// stored remembers recently stored digests and when, so a repeated output
// (the same file read by many runs) is not written again until it is old
// enough to need refreshing before it expires.
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
var errBadRef = errors.New("runner: the result's output reference is not in " + objectstore.Bucket)

// resolveOutput makes a result carry its full output in Out and its
// reference in Ref, whichever way it came: it fetches an output sent by
// reference, and stores one sent inline, publishing it with the batch. The
// guards then see the output itself, whatever its size.
func (p *partition) resolveOutput(ctx context.Context, ev *event.Event) error {
	st := p.r.outputs
	if ev.Ref != nil {
		data, err := st.Get(ctx, *ev.Ref)
		switch {
		case errors.Is(err, objectstore.ErrNotFound) || errors.Is(err, objectstore.ErrDigestMismatch):
			return fmt.Errorf("%w: %v (put the output in the store before publishing its reference)", errBadRef, err)
		case err != nil:
			return err
		}
		ev.Out = string(data)
		return nil
	}
	data := []byte(ev.Out)
	if p.replay {
		ref := event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
		ev.Ref = &ref // stored when the result was first handled
		return nil
	}
	chunk, meta, ref, err := st.Messages(data)
	if errors.Is(err, objectstore.ErrTooLarge) {
		// Inline outputs are smaller than a chunk unless the event limit
		// was raised past it: store those the long way.
		ref, err = st.Put(ctx, data)
		ev.Ref = &ref
		return err
	}
	if err != nil {
		return err
	}
	ev.Ref = &ref
	if p.seen.fresh(ref.Digest, st.MaxAge()) {
		return nil
	}
	for _, m := range []*nats.Msg{chunk, meta} {
		if m == nil {
			continue
		}
		f, err := p.r.js.PublishMsgAsync(m)
		if err != nil {
			return err
		}
		p.track(f)
	}
	p.seen.add(ref.Digest)
	return nil
}
