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

// ErrEventStreamOutdated is returned by Provision when AGENT_EVENTS was
// created by a version that kept timers in it: the server cannot turn
// message schedules off on an existing stream.
var ErrEventStreamOutdated = errors.New("streams: the event stream predates GUARD_TIMERS")

// Provision creates guardstream's streams and bucket, or updates them to
// c. It is idempotent: running it again with the same c changes nothing
// and sends the server no update (see Covers).
// An existing stream takes c's limits at once: lowering one drops the
// oldest messages past it. The server reserves every cap on its disk (or
// memory) when the stream is made; one it cannot reserve is refused with
// what to lower.
func Provision(ctx context.Context, js jetstream.JetStream, c Config) error {
	if err := c.Validate(); err != nil {
		return fmt.Errorf("streams: invalid config: %w", err)
	}
	events := c.EventStreamConfig()
	if s, err := js.Stream(ctx, EventStream); err == nil {
		old := s.CachedInfo().Config
		if old.SubjectTransform != nil && old.SubjectTransform.Destination != events.SubjectTransform.Destination {
			return fmt.Errorf("%w: %s maps to %q, this config to %q; drain the runs and delete the stream, or keep the old count",
				ErrPartitionsChanged, EventStream, old.SubjectTransform.Destination, events.SubjectTransform.Destination)
		}
		if old.AllowMsgSchedules {
			return fmt.Errorf("%w: %s allows message schedules, which let any agent purge it with one header; "+
				"drain the runs and delete the stream (nats stream rm %s, or a fresh -data-dir) so it is created anew",
				ErrEventStreamOutdated, EventStream, EventStream)
		}
	} else if !errors.Is(err, jetstream.ErrStreamNotFound) {
		return fmt.Errorf("streams: looking up %s: %w", EventStream, err)
	}
	// GUARD_TIMERS first: AGENT_EVENTS sources it.
	for _, sc := range []jetstream.StreamConfig{c.TimerStreamConfig(), events, c.ControlStreamConfig(), c.DeadLetterStreamConfig()} {
		if _, err := EnsureStream(ctx, js, sc); err != nil {
			return fmt.Errorf("streams: provisioning %s: %w%s", sc.Name, err, reserveHint(err, sc.MaxBytes))
		}
	}
	runs := c.RunsBucketConfig()
	if err := ensureBucket(ctx, js, runs); err != nil {
		return fmt.Errorf("streams: provisioning bucket %s: %w%s", RunsBucket, err, reserveHint(err, runs.MaxBytes))
	}
	return nil
}

// The server's codes for a stream whose cap it cannot reserve.
const (
	errCodeMemoryExceeded  jetstream.ErrorCode = 10028
	errCodeStorageExceeded jetstream.ErrorCode = 10047
)

// reserveHint explains a cap the server could not reserve.
func reserveHint(err error, maxBytes int64) string {
	var api *jetstream.APIError
	if !errors.As(err, &api) || (api.ErrorCode != errCodeMemoryExceeded && api.ErrorCode != errCodeStorageExceeded) {
		return ""
	}
	return fmt.Sprintf(" (the server reserves each stream's cap, here %d bytes, within its max_file_store or max_memory_store, "+
		"by default 75%% of the free disk or memory: free space, raise the server's limit, or lower the stream caps)", maxBytes)
}
