package objectstore

import (
	"context"
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// LinkName returns the name of the link that records the output of call
// in run of tenant: "runs/<tenant>/<run>/<call>", each id percent-escaped
// ("%" as %25, "/" as %2F).
func LinkName(tenant, run, call string) (string, error) {
	for _, id := range []struct{ field, v string }{{"tenant", tenant}, {"run", run}, {"call", call}} {
		if err := event.CheckID(id.v); err != nil {
			return "", fmt.Errorf("%w: %s %q: %v", ErrInvalidID, id.field, id.v, err)
		}
	}
	return "runs/" + escapeID(tenant) + "/" + escapeID(run) + "/" + escapeID(call), nil
}

var idEscaper = strings.NewReplacer("%", "%25", "/", "%2F")

func escapeID(id string) string {
	if !strings.ContainsAny(id, "%/") {
		return id
	}
	return idEscaper.Replace(id)
}

// Link records that call, in run of tenant, produced the output ref names,
// which the bucket must hold. Linking a call again replaces its link.
func (s *Store) Link(ctx context.Context, tenant, run, call string, ref event.OutputRef) error {
	name, err := LinkName(tenant, run, call)
	if err != nil {
		return err
	}
	info, err := s.info(ctx, ref.Digest)
	if err != nil {
		return err
	}
	if info.Size != uint64(ref.Size) {
		return fmt.Errorf("%w: %s holds %d bytes, the reference says %d", ErrDigestMismatch, ref.Digest, info.Size, ref.Size)
	}
	if _, err := s.obs.AddLink(ctx, name, info); err != nil {
		return fmt.Errorf("objectstore: linking %s to %s: %w", name, ref.Digest, err)
	}
	return nil
}

// Resolve returns the reference of the output that call, in run of
// tenant, produced, as Link recorded it. It fails with ErrNotFound when
// there is no link or its output has expired.
func (s *Store) Resolve(ctx context.Context, tenant, run, call string) (event.OutputRef, error) {
	name, err := LinkName(tenant, run, call)
	if err != nil {
		return event.OutputRef{}, err
	}
	info, err := s.obs.GetInfo(ctx, name)
	if err != nil {
		return event.OutputRef{}, s.wrap(err, name)
	}
	if info.Opts == nil || info.Opts.Link == nil || info.Opts.Link.Bucket != Bucket || !validDigest(info.Opts.Link.Name) {
		return event.OutputRef{}, fmt.Errorf("%w: %s is not a link to an output", ErrNotFound, name)
	}
	ref, err := s.Lookup(ctx, info.Opts.Link.Name)
	if err != nil {
		return event.OutputRef{}, fmt.Errorf("the output of %s: %w", name, err)
	}
	return ref, nil
}

// Fetch returns the full output that call, in run of tenant, produced:
// Resolve, then Get.
func (s *Store) Fetch(ctx context.Context, tenant, run, call string) ([]byte, event.OutputRef, error) {
	ref, err := s.Resolve(ctx, tenant, run, call)
	if err != nil {
		return nil, ref, err
	}
	data, err := s.Get(ctx, ref)
	return data, ref, err
}
