package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Throughput is a measured drain.
type Throughput struct {
	Events    int     `json:"events"`
	Seconds   float64 `json:"seconds"`
	PerSecond float64 `json:"events_per_second"`
	// Stored is the messages the server stored per event, in every
	// stream: the answers, and for the guard also the object-store
	// copies, checkpoints and timers. It is what the server's work
	// scales with.
	Stored float64 `json:"stored_per_event"`
}

// Round is one pair of drains of the same events on fresh runs: the
// baseline's, then the guard's, close enough in time that the machine's
// noise touches both alike.
type Round struct {
	Baseline Throughput `json:"baseline"`
	Guard    Throughput `json:"guard"`
	Ratio    float64    `json:"ratio"`
}

// measureThroughput measures cfg.Rounds rounds into rep, and takes the
// round with the median ratio as the result.
func measureThroughput(ctx context.Context, cfg Config, js jetstream.JetStream, url string, b *baseline, rep *Report, log io.Writer) error {
	for i := range cfg.Rounds {
		mix := Mix{Tenant: tenant, Runs: cfg.Runs, Events: cfg.Events, Payload: cfg.Payload, Prefix: "t" + strconv.Itoa(i) + "-"}
		events := mix.events()
		fmt.Fprintf(log, "throughput round %d of %d: %d events over %d partitions, baseline then guard\n", i+1, cfg.Rounds, len(events), cfg.Partitions)
		bt, err := timeDrain(ctx, cfg, js, events, baseMsgSubject, baseIn, b.consumers(), func() (*running, error) {
			return startBaseline(ctx, url, cfg, b)
		})
		if err != nil {
			return fmt.Errorf("baseline: %w", err)
		}
		gt, err := timeDrain(ctx, cfg, js, events, agentSubject, streams.EventStream, guardConsumers(cfg.Partitions), func() (*running, error) {
			return startGuard(ctx, url, cfg)
		})
		if err != nil {
			return fmt.Errorf("guard: %w", err)
		}
		rep.Rounds = append(rep.Rounds, Round{Baseline: bt, Guard: gt, Ratio: gt.PerSecond / bt.PerSecond})
	}
	byRatio := slices.Clone(rep.Rounds)
	slices.SortFunc(byRatio, func(a, b Round) int { return cmp.Compare(a.Ratio, b.Ratio) })
	med := byRatio[len(byRatio)/2]
	rep.Baseline, rep.Guard, rep.Ratio = med.Baseline, med.Guard, med.Ratio
	return nil
}

// timeDrain preloads events, starts a pipeline and times how long its
// consumers of stream take to handle them all; it stops the pipeline.
func timeDrain(ctx context.Context, cfg Config, js jetstream.JetStream, events []msg, subject func(msg) string,
	stream string, consumers []string, start func() (*running, error)) (Throughput, error) {
	if err := phase(ctx, cfg, func(ctx context.Context) error { return preload(ctx, js, events, subject) }); err != nil {
		return Throughput{}, err
	}
	before, err := storedMessages(ctx, js)
	if err != nil {
		return Throughput{}, err
	}
	began := time.Now()
	r, err := start()
	if err != nil {
		return Throughput{}, err
	}
	defer r.stop()
	var done time.Time
	err = phase(ctx, cfg, func(ctx context.Context) (err error) {
		done, err = drain(ctx, js, stream, consumers)
		return err
	})
	if err != nil {
		return Throughput{}, err
	}
	after, err := storedMessages(ctx, js)
	tp := throughput(len(events), done.Sub(began))
	tp.Stored = float64(after-before) / float64(len(events))
	return tp, err
}

// storedMessages returns how many messages the server has stored in all,
// summing the last sequence of every stream.
func storedMessages(ctx context.Context, js jetstream.JetStream) (uint64, error) {
	var n uint64
	streams := js.ListStreams(ctx)
	for info := range streams.Info() {
		n += info.State.LastSeq
	}
	return n, streams.Err()
}

// preload publishes msgs in order, each on the subject subject gives it,
// and waits until the stream has stored them all.
func preload(ctx context.Context, js jetstream.JetStream, msgs []msg, subject func(msg) string) error {
	for _, m := range msgs {
		_, err := publishAsync(js, &nats.Msg{Subject: subject(m), Data: m.data})
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

// publishAsync publishes asynchronously, waiting for the server to catch up
// whenever too many publishes are outstanding.
func publishAsync(js jetstream.JetStream, m *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	for {
		f, err := js.PublishMsgAsync(m, opts...)
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			return f, err
		}
		<-js.PublishAsyncComplete()
	}
}
