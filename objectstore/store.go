package objectstore

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
	"github.com/nats-io/nats.go/jetstream"
)

// Store keeps full outputs in the guard_outputs bucket. It is safe for
// concurrent use.
type Store struct {
	obs    jetstream.ObjectStore
	cfg    Config
	maxAge time.Duration // the bucket's, which Put refreshes against
	now    func() time.Time
}

// Provision creates the guard_outputs bucket, or updates it to cfg, and
// returns a Store over it. It is idempotent: provisioning again with the
// same cfg changes nothing.
func Provision(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("objectstore: invalid config: %w", err)
	}
	obs, err := js.CreateOrUpdateObjectStore(ctx, cfg.BucketConfig())
	if err != nil {
		return nil, fmt.Errorf("objectstore: provisioning bucket %s: %w", Bucket, err)
	}
	return &Store{obs: obs, cfg: cfg, maxAge: cfg.MaxAge, now: time.Now}, nil
}

// Open returns a Store over the guard_outputs bucket, which must exist; it
// uses cfg's limits and the bucket's own retention.
func Open(ctx context.Context, js jetstream.JetStream, cfg Config) (*Store, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("objectstore: invalid config: %w", err)
	}
	obs, err := js.ObjectStore(ctx, Bucket)
	if err != nil {
		return nil, fmt.Errorf("objectstore: opening bucket %s: %w", Bucket, err)
	}
	st, err := obs.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("objectstore: reading the status of bucket %s: %w", Bucket, err)
	}
	return &Store{obs: obs, cfg: cfg, maxAge: st.TTL(), now: time.Now}, nil
}

// Put stores data under its digest, unless the bucket holds it already,
// and returns its reference.
func (s *Store) Put(ctx context.Context, data []byte) (event.OutputRef, error) {
	ref := event.OutputRef{Digest: event.Digest(data), Size: int64(len(data))}
	if ref.Size > s.cfg.MaxOutputBytes {
		return ref, fmt.Errorf("%w: %d bytes, the limit is %d", ErrTooLarge, ref.Size, s.cfg.MaxOutputBytes)
	}
	info, err := s.obs.GetInfo(ctx, ref.Digest)
	switch {
	case err == nil:
		if holds(info, ref) && !s.aging(info) {
			return ref, nil
		}
	case !errors.Is(err, jetstream.ErrObjectNotFound):
		return ref, fmt.Errorf("objectstore: looking up %s: %w", ref.Digest, err)
	}
	meta := jetstream.ObjectMeta{Name: ref.Digest, Opts: &jetstream.ObjectMetaOptions{ChunkSize: uint32(s.cfg.ChunkSize)}}
	if _, err := s.obs.Put(ctx, meta, bytes.NewReader(data)); err != nil {
		return ref, fmt.Errorf("objectstore: storing %s (%d bytes): %w", ref.Digest, ref.Size, err)
	}
	return ref, nil
}

// holds reports whether info describes an object with ref's content, by
// the size and SHA-256 the object store recorded when storing it.
func holds(info *jetstream.ObjectInfo, ref event.OutputRef) bool {
	return !info.Deleted && info.Size == uint64(ref.Size) && info.Digest == natsDigest(ref.Digest)
}

// aging reports whether the object is old enough that Put should store it
// again rather than let it expire soon.
func (s *Store) aging(info *jetstream.ObjectInfo) bool {
	return s.maxAge > 0 && s.now().Sub(info.ModTime) > s.maxAge/2
}

// natsDigest converts a digest from our form ("sha256:<hex>") to the form
// the object store records ("SHA-256=<base64url>").
func natsDigest(d string) string {
	sum, err := hex.DecodeString(strings.TrimPrefix(d, "sha256:"))
	if err != nil {
		return ""
	}
	return "SHA-256=" + base64.URLEncoding.EncodeToString(sum)
}

// Get returns the output ref names, after checking its size and digest.
func (s *Store) Get(ctx context.Context, ref event.OutputRef) ([]byte, error) {
	info, err := s.info(ctx, ref.Digest)
	if err != nil {
		return nil, err
	}
	if info.Size != uint64(ref.Size) {
		return nil, fmt.Errorf("%w: %s holds %d bytes, the reference says %d", ErrDigestMismatch, ref.Digest, info.Size, ref.Size)
	}
	if ref.Size > s.cfg.MaxOutputBytes {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, ref.Digest, ref.Size, s.cfg.MaxOutputBytes)
	}
	data, err := s.read(ctx, ref)
	if err != nil {
		return nil, err
	}
	if got := event.Digest(data); got != ref.Digest {
		return nil, fmt.Errorf("%w: read %s from the object named %s", ErrDigestMismatch, got, ref.Digest)
	}
	return data, nil
}

// read reads the object ref names, which holds ref.Size bytes.
func (s *Store) read(ctx context.Context, ref event.OutputRef) ([]byte, error) {
	r, err := s.obs.Get(ctx, ref.Digest)
	if err != nil {
		return nil, s.wrap(err, ref.Digest)
	}
	defer r.Close()
	data := make([]byte, ref.Size)
	if _, err := io.ReadFull(r, data); err != nil {
		return nil, s.wrap(err, ref.Digest)
	}
	// Reading to the end makes the object store check its own digest.
	var extra [1]byte
	switch n, err := r.Read(extra[:]); {
	case n > 0:
		return nil, fmt.Errorf("%w: %s holds more than the %d bytes its info says", ErrDigestMismatch, ref.Digest, ref.Size)
	case err != nil && err != io.EOF:
		return nil, s.wrap(err, ref.Digest)
	}
	return data, nil
}

// Lookup returns the reference of the output named digest.
func (s *Store) Lookup(ctx context.Context, digest string) (event.OutputRef, error) {
	info, err := s.info(ctx, digest)
	if err != nil {
		return event.OutputRef{}, err
	}
	return event.OutputRef{Digest: digest, Size: int64(info.Size)}, nil
}

// Page returns the view of the output ref names that starts at line
// offset, bounded by o's caps, rewritten for o's workspace; o.Offset and
// o.Digest are ignored.
func (s *Store) Page(ctx context.Context, ref event.OutputRef, offset int64, o view.Options) (view.View, error) {
	data, err := s.Get(ctx, ref)
	if err != nil {
		return view.View{}, err
	}
	o.Offset, o.Digest = offset, ref.Digest
	return view.Of(data, o), nil
}

// info returns the object info of the output named digest.
func (s *Store) info(ctx context.Context, digest string) (*jetstream.ObjectInfo, error) {
	if !validDigest(digest) {
		return nil, fmt.Errorf("%w: %q", ErrInvalidDigest, digest)
	}
	info, err := s.obs.GetInfo(ctx, digest)
	if err != nil {
		return nil, s.wrap(err, digest)
	}
	return info, nil
}

// validDigest reports whether d has the form event.Digest returns.
func validDigest(d string) bool {
	hexits, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexits) != 64 {
		return false
	}
	for _, c := range []byte(hexits) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// wrap turns the object store's errors about name into ours.
func (s *Store) wrap(err error, name string) error {
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return fmt.Errorf("%w: %s in bucket %s", ErrNotFound, name, Bucket)
	case errors.Is(err, jetstream.ErrDigestMismatch):
		return fmt.Errorf("%w: %s: %v", ErrDigestMismatch, name, err)
	}
	return fmt.Errorf("objectstore: reading %s: %w", name, err)
}

// MaxAge returns how long the bucket keeps an object after it was written.
func (s *Store) MaxAge() time.Duration { return s.maxAge }
