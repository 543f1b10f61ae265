package streams

import (
	"context"
	"errors"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// ErrPartitionsChanged is returned by Provision when AGENT_EVENTS exists
// with a different partition count.
var ErrPartitionsChanged = errors.New("streams: the partition count of an existing event stream cannot change")

// Provision creates guardstream's streams and bucket, or updates them to
// c. It is idempotent: running it again with the same c changes nothing.
func Provision(ctx context.Context, js jetstream.JetStream, c Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("streams: invalid config: %w", err)
	}
	events := c.EventStreamConfig()
	if s, err := js.Stream(ctx, EventStream); err == nil {
		old := s.CachedInfo().Config.SubjectTransform
		if old != nil && old.Destination != events.SubjectTransform.Destination {
			return fmt.Errorf("%w: %s maps to %q, this config to %q; drain the runs and delete the stream, or keep the old count",
				ErrPartitionsChanged, EventStream, old.Destination, events.SubjectTransform.Destination)
		}
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("streams: looking up %s: %w", EventStream, err)
	}
	for _, sc := range []jetstream.StreamConfig{events, c.ControlStreamConfig(), c.DeadLetterStreamConfig()} {
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("streams: provisioning %s: %w", sc.Name, err)
		}
	}
	if _, err := js.CreateOrUpdateKeyValue(ctx, c.RunsBucketConfig()); err != nil {
		return fmt.Errorf("streams: provisioning bucket %s: %w", RunsBucket, err)
	}
	return nil
}
