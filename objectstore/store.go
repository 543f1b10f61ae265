package objectstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Store keeps full outputs in the GUARD_OUTPUTS stream. It is safe for
// concurrent use.
type Store struct {
	js     jetstream.JetStream
	stream jetstream.Stream
	cfg    Config
	maxAge time.Duration // the stream's, which Put refreshes against
	now    func() time.Time
}

// Provision creates the GUARD_OUTPUTS stream, or updates it to cfg, and
// returns a Store over it. It is idempotent: provisioning again with the
// same cfg changes nothing.
func Provision(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("objectstore: invalid config: %w", err)
	}
	s, err := streams.EnsureStream(ctx, js, cfg.StreamConfig())
	if err != nil {
		return nil, fmt.Errorf("objectstore: provisioning stream %s: %w", Stream, err)
	}
	return &Store{js: js, stream: s, cfg: cfg, maxAge: cfg.MaxAge, now: time.Now}, nil
}

// Open returns a Store over the GUARD_OUTPUTS stream, which must exist; it
// uses cfg's limits and the stream's own retention.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("objectstore: invalid config: %w", err)
	}
	s, err := js.Stream(ctx, Stream)
	if err != nil {
		return nil, fmt.Errorf("objectstore: opening stream %s: %w", Stream, err)
	}
	return &Store{js: js, stream: s, cfg: cfg, maxAge: s.CachedInfo().Config.MaxAge, now: time.Now}, nil
}

// head is what the first part of a stored output says about it.
type head struct {
	ref   event.OutputRef
	parts int
	first []byte
	at    time.Time
}

// Put stores data for tenant under its digest, unless the stream holds
// it already, and returns its reference.
func (s *Store) Put(ctx context.Context, tenant string, data []byte) (event.OutputRef, error) {
	ref := event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
	if ref.Size > s.cfg.MaxOutputBytes {
		return ref, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, ref.Size, s.cfg.MaxOutputBytes)
	}
	h, err := s.head(ctx, tenant, ref.Digest)
	switch {
	case err == nil:
		if h.ref == ref && !s.aging(h.at) {
			complete, err := s.hasLast(ctx, tenant, h)
			if err != nil || complete {
				return ref, err
			}
		}
	case !errors.Is(err, ErrNotFound) && !errors.Is(err, ErrDigestMismatch):
		return ref, err
	}
	return Upload(ctx, s.js, tenant, data, s.cfg)
}

// hasLast reports whether the stream still holds the last part of the
// output h heads. Parts are written last to first, so the last has the
// lowest sequence and is the first a full stream drops: with it there,
// the parts written after it are there too.
func (s *Store) hasLast(ctx context.Context, tenant string, h head) (bool, error) {
	if h.parts == 1 {
		return true, nil
	}
	subj, _ := Subject(tenant, h.ref.Digest, h.parts-1)
	switch _, err := s.stream.GetLastMsgForSubject(ctx, subj); {
	case err == nil:
		return true, nil
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return false, nil
	default:
		return false, s.wrap(err, h.ref.Digest, h.parts-1)
	}
}

// aging reports whether an output written at is old enough that Put should
// store it again rather than let it expire soon.
func (s *Store) aging(at time.Time) bool {
	return s.maxAge > 0 && s.now().Sub(at) > s.maxAge/2
}

// Get returns the output ref names that tenant stored, after checking its
// size and digest.
func (s *Store) Get(ctx context.Context, tenant string, ref event.OutputRef) ([]byte, error) {
	h, err := s.head(ctx, tenant, ref.Digest)
	if err != nil {
		return nil, err
	}
	if h.ref.Size != ref.Size {
		return nil, fmt.Errorf("%w: %s holds %d bytes, the reference says %d", ErrDigestMismatch, ref.Digest, h.ref.Size, ref.Size)
	}
	data := make([]byte, 0, ref.Size)
	data = append(data, h.first...)
	for i := 1; i < h.parts; i++ {
		subj, _ := Subject(tenant, ref.Digest, i)
		m, err := s.last(ctx, subj)
		if err != nil {
			return nil, s.wrap(err, ref.Digest, i)
		}
		if want := h.partSize(i); int64(len(m.Data)) != want {
			return nil, fmt.Errorf("%w: part %d of %s holds %d bytes, want %d", ErrDigestMismatch, i, ref.Digest, len(m.Data), want)
		}
		data = append(data, m.Data...)
	}
	if got := event.Digest(data); int64(len(data)) != ref.Size || got != ref.Digest {
		return nil, fmt.Errorf("%w: read %d bytes with digest %s from the parts of %s", ErrDigestMismatch, len(data), got, ref.Digest)
	}
	return data, nil
}

// Lookup returns the reference of the output named digest that tenant
// stored.
func (s *Store) Lookup(ctx context.Context, tenant, digest string) (event.OutputRef, error) {
	h, err := s.head(ctx, tenant, digest)
	return h.ref, err
}

// Page returns the view of the output ref names, which tenant stored, that
// starts at line offset, bounded by o's caps, rewritten for o's workspace;
// o.Offset and o.Digest are ignored.
func (s *Store) Page(ctx context.Context, tenant string, ref event.OutputRef, offset int64, o view.Options) (view.View, error) {
	data, err := s.Get(ctx, tenant, ref)
	if err != nil {
		return view.View{}, err
	}
	o.Offset, o.Digest = offset, ref.Digest
	return view.Of(data, o), nil
}

// head reads the first part of the output named digest that tenant stored.
// A writer other than Upload may have put anything there, so every number
// it reads is checked against the limits.
func (s *Store) head(ctx context.Context, tenant, digest string) (head, error) {
	subj, err := Subject(tenant, digest, 0)
	if err != nil {
		return head{}, err
	}
	m, err := s.last(ctx, subj)
	if err != nil {
		return head{}, s.wrap(err, digest, 0)
	}
	size, err1 := strconv.ParseInt(m.Header.Get(HeaderSize), 10, 64)
	parts, err2 := strconv.Atoi(m.Header.Get(HeaderParts))
	switch {
	case err1 != nil || err2 != nil || size < 0 || parts < 1:
		return head{}, fmt.Errorf("%w: the first part of %s has no valid %s and %s headers", ErrDigestMismatch, digest, HeaderSize, HeaderParts)
	case size > s.cfg.MaxOutputBytes:
		return head{}, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, digest, size, s.cfg.MaxOutputBytes)
	case parts == 1 && int64(len(m.Data)) != size,
		parts > 1 && (len(m.Data) < MinChunkSize || int64(parts) != (size+int64(len(m.Data))-1)/int64(len(m.Data))):
		return head{}, fmt.Errorf("%w: %s claims %d parts for %d bytes, the first of %d bytes; "+
			"want parts of the first's size, at least %d bytes, but the last", ErrDigestMismatch, digest, parts, size, len(m.Data), MinChunkSize)
	}
	return head{ref: event.OutputRef{Digest: digest, Size: size}, parts: parts, first: m.Data, at: m.Time}, nil
}

// partSize returns how many bytes part i of the output h heads holds:
// each as many as the first, and the last the rest. head checked that
// this adds up to the output's size, so an output takes at most
// MaxOutputBytes/MinChunkSize+1 reads, whoever stored it, and a part of
// another size ends the reading.
func (h head) partSize(i int) int64 {
	chunk := int64(len(h.first))
	if i < h.parts-1 {
		return chunk
	}
	return h.ref.Size - int64(h.parts-1)*chunk
}

// digestHex returns the hex digits of a digest of the form event.Digest
// returns.
func digestHex(d string) (string, bool) {
	hexits, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexits) != 64 {
		return "", false
	}
	for _, c := range []byte(hexits) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return "", false
		}
	}
	return hexits, true
}

// wrap turns the stream's errors about part i of the output named digest
// into ours.
func (s *Store) wrap(err error, digest string, part int) error {
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return fmt.Errorf("%w: part %d of %s in %s", ErrNotFound, part, digest, Stream)
	}
	return fmt.Errorf("objectstore: reading part %d of %s: %w", part, digest, err)
}

// MaxAge returns how long the stream keeps an output after it was written.
func (s *Store) MaxAge() time.Duration { return s.maxAge }
