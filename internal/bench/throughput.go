package bench

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Throughput is a measured drain.
type Throughput struct {
	Events    int     `json:"events"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"events_per_second"`
}

// preload publishes msgs in order, each on the subject subject gives it,
// and waits until the stream has stored them all.
func preload(ctx context.Context, js jetstream.JetStream, msgs []msg, subject func(msg) string) error {
	for _, m := range msgs {
		_, err := js.PublishAsync(subject(m), m.data)
		if errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			<-js.PublishAsyncComplete() // the server fell behind: let it catch up
			_, err = js.PublishAsync(subject(m), m.data)
		}
		if err != nil {
			return err
		}
	}
	select {
	case <-js.PublishAsyncComplete():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// drain waits until the named consumers of stream have acked everything,
// polling, and returns when that happened.
func drain(ctx context.Context, js jetstream.JetStream, stream string, consumers []string) (time.Time, error) {
	for {
		left := 0
		for _, name := range consumers {
			c, err := js.Consumer(ctx, stream, name)
			if errors.Is(err, jetstream.ErrConsumerNotFound) {
				left++ // not created yet
				continue
			}
			if err != nil {
				return time.Time{}, err
			}
			info, err := c.Info(ctx)
			if err != nil {
				return time.Time{}, err
			}
			left += int(info.NumPending) + info.NumAckPending
		}
		if left == 0 {
			return time.Now(), nil
		}
		select {
		case <-ctx.Done():
			return time.Time{}, fmt.Errorf("%s: %d events still unprocessed: %w", stream, left, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

func throughput(events int, d time.Duration) Throughput {
	return Throughput{Events: events, Seconds: d.Seconds(), PerSecond: float64(events) / d.Seconds()}
}
