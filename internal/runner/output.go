package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore"
)

// storedSize bounds the digests a partition remembers having stored.
const storedSize = 4096

// stored remembers recently stored digests, so a repeated output (the same
// file read by many runs) is not looked up again.
type stored struct {
	ring [storedSize]string
	next int
	set  map[string]struct{}
}

func (s *stored) has(d string) bool { _, ok := s.set[d]; return ok }

func (s *stored) add(d string) {
	if s.set == nil {
		s.set = make(map[string]struct{}, storedSize)
	}
	delete(s.set, s.ring[s.next])
	s.ring[s.next] = d
	s.next = (s.next + 1) % storedSize
	s.set[d] = struct{}{}
}

// errBadRef marks a result whose reference the store cannot honour: the
// event is dead-lettered, not retried.
var errBadRef = errors.New("runner: the result's output reference is not in " + objectstore.Bucket)

// resolveOutput makes a result carry its full output in Out and its
// reference in Ref, whichever way it came: it fetches an output sent by
// reference, stores one sent inline, and links the call to it for
// operators. The guards then see the output itself, whatever its size.
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
		p.seen.add(ev.Ref.Digest)
	} else {
		data := []byte(ev.Out)
		ref := event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
		if !p.seen.has(ref.Digest) {
			var err error
			if ref, err = st.Put(ctx, data); err != nil {
				return err
			}
			p.seen.add(ref.Digest)
		}
		ev.Ref = &ref
	}
	return st.Link(ctx, ev.Tenant, ev.Run, ev.Call, *ev.Ref)
}
