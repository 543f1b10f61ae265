package bench

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Baseline stream names.
const (
	baseIn     = "BENCH_IN"
	baseOut    = "BENCH_OUT"
	baseSource = "bench.in"
)

// baseline is the bare pipeline: per partition, consume an event, publish
// one message, ack — batched and pipelined like the runner, with nothing
// decided.
type baseline struct {
	js         jetstream.JetStream
	partitions int
	batch      int
}

// provision creates the baseline's streams with the same partitioning and
// settings as AGENT_EVENTS and GUARD_CONTROL.
func (b *baseline) provision(ctx context.Context) error {
	in := jetstream.StreamConfig{
		Name:     baseIn,
		Subjects: []string{baseSource + ".*.*.*"},
		SubjectTransform: &jetstream.SubjectTransformConfig{
			Source:      baseSource + ".*.*.*",
			Destination: baseSource + ".{{partition(" + strconv.Itoa(b.partitions) + ",1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}.{{wildcard(3)}}",
		},
		Storage: jetstream.FileStorage,
	}
	out := jetstream.StreamConfig{Name: baseOut, Subjects: []string{"bench.out.>"}, Storage: jetstream.FileStorage}
	for _, c := range []jetstream.StreamConfig{in, out} {
		if _, err := b.js.CreateOrUpdateStream(ctx, c); err != nil {
			return err
		}
	}
	for p := range b.partitions {
		if _, err := b.js.CreateOrUpdateConsumer(ctx, baseIn, jetstream.ConsumerConfig{
			Durable: "base-p" + strconv.Itoa(p), FilterSubject: baseSource + "." + strconv.Itoa(p) + ".>",
			AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 4 * b.batch,
		}); err != nil {
			return err
		}
	}
	return nil
}

// subject maps an agent event subject to the baseline's.
func baseSubject(agent string) string { return baseSource + strings.TrimPrefix(agent, "agent") }

// run consumes every partition until ctx ends.
func (b *baseline) run(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make(chan error, b.partitions)
	for p := range b.partitions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.partition(ctx, p); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (b *baseline) partition(ctx context.Context, p int) error {
	cons, err := b.js.Consumer(ctx, baseIn, "base-p"+strconv.Itoa(p))
	if err != nil {
		return err
	}
	msgs := make(chan jetstream.Msg, 2*b.batch)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}, jetstream.PullMaxMessages(b.batch))
	if err != nil {
		return err
	}
	defer cc.Stop()
	batch := make([]jetstream.Msg, 0, b.batch)
	var futs []jetstream.PubAckFuture
	for {
		select {
		case <-ctx.Done():
			return nil
		case m := <-msgs:
			batch = append(batch[:0], m)
		fill:
			for len(batch) < cap(batch) {
				select {
				case m := <-msgs:
					batch = append(batch, m)
				default:
					break fill
				}
			}
			futs = futs[:0]
			for _, m := range batch {
				meta, err := m.Metadata()
				if err != nil {
					return err
				}
				out := nats.NewMsg("bench.out." + strconv.Itoa(p))
				out.Data = m.Data()[:min(64, len(m.Data()))]
				f, err := b.js.PublishMsgAsync(out, jetstream.WithMsgID("b."+strconv.FormatUint(meta.Sequence.Stream, 10)))
				if err != nil {
					return err
				}
				futs = append(futs, f)
			}
			for _, f := range futs {
				select {
				case <-f.Ok():
				case err := <-f.Err():
					return err
				}
			}
			if err := batch[len(batch)-1].Ack(); err != nil {
				return err
			}
		}
	}
}
