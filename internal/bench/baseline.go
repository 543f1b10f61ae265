package bench

import (
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/guardstream/guardstream/internal/runner"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Baseline stream names.
const (
	baseIn     = "BENCH_IN"
	baseOut    = "BENCH_OUT"
	baseSource = "bench.in"
	// seqHeader carries, on a baseline output, the stream sequence of the
	// event it answers, so latency can be matched without decoding.
	seqHeader = "Bench-Seq"
)

// baseline is the bare pipeline: per partition, consume an event, publish
// one message, ack — batched and pipelined like the runner, with nothing
// decided.
type baseline struct {
	partitions int
	batch      int
}

// provision creates the baseline's streams with the same partitioning and
// settings as AGENT_EVENTS and GUARD_CONTROL.
func (b *baseline) provision(ctx context.Context, js jetstream.JetStream) error {
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
		if _, err := js.CreateOrUpdateStream(ctx, c); err != nil {
			return err
		}
	}
	for p, name := range b.consumers() {
		if _, err := js.CreateOrUpdateConsumer(ctx, baseIn, jetstream.ConsumerConfig{
			Durable: name, FilterSubject: baseSource + "." + strconv.Itoa(p) + ".>",
			AckPolicy: jetstream.AckAllPolicy, MaxAckPending: 4 * b.batch,
		}); err != nil {
			return err
		}
	}
	return nil
}

// consumers returns the names of the baseline's consumers, by partition.
func (b *baseline) consumers() []string {
	names := make([]string, b.partitions)
	for p := range names {
		names[p] = "base-p" + strconv.Itoa(p)
	}
	return names
}

// baseSubject maps an agent event subject to the baseline's.
func baseSubject(agent string) string { return baseSource + strings.TrimPrefix(agent, "agent") }

// baseMsgSubject is the subject the baseline's copy of m is published on.
func baseMsgSubject(m msg) string { return baseSubject(m.subject) }

// run consumes every partition until ctx ends.
func (b *baseline) run(ctx context.Context, js jetstream.JetStream) error {
	var wg sync.WaitGroup
	errs := make(chan error, b.partitions)
	for p := range b.partitions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := b.partition(ctx, js, p); err != nil && ctx.Err() == nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	return <-errs
}

// inflight is a baseline batch published but not yet acked.
type inflight struct {
	last jetstream.Msg
	futs []jetstream.PubAckFuture
	done int
}

// partition is the runner's pipeline with nothing decided: each event
// draws one publish; up to four batches are in flight, each acked (AckAll)
// once its publishes are stored, and the loop waits on events and on the
// oldest publish at once.
func (b *baseline) partition(ctx context.Context, js jetstream.JetStream, p int) error {
	cons, err := js.Consumer(ctx, baseIn, b.consumers()[p])
	if err != nil {
		return err
	}
	msgs := make(chan jetstream.Msg, 2*b.batch)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}, jetstream.PullMaxMessages(b.batch), jetstream.PullHeartbeat(runner.PullHeartbeat))
	if err != nil {
		return err
	}
	defer cc.Stop()
	var queue []*inflight
	for {
		var stored <-chan *jetstream.PubAck
		var failed <-chan error
		if len(queue) > 0 {
			f := queue[0].futs[queue[0].done]
			stored, failed = f.Ok(), f.Err()
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case <-stored:
			queue[0].done++
		case m := <-msgs:
			batch := &inflight{}
			for {
				meta, err := m.Metadata()
				if err != nil {
					return err
				}
				out := nats.NewMsg("bench.out." + strconv.Itoa(p))
				out.Data = m.Data()[:min(64, len(m.Data()))]
				out.Header.Set(seqHeader, strconv.FormatUint(meta.Sequence.Stream, 10))
				f, err := publishAsync(js, out, jetstream.WithMsgID("b."+strconv.FormatUint(meta.Sequence.Stream, 10)))
				if err != nil {
					return err
				}
				batch.futs, batch.last = append(batch.futs, f), m
				if len(batch.futs) == b.batch || len(msgs) == 0 {
					break
				}
				m = <-msgs
			}
			queue = append(queue, batch)
		}
		// Ack what is stored, in order; wait when the pipeline is full.
		for len(queue) > 0 {
			q := queue[0]
			for q.done < len(q.futs) {
				if len(queue) <= 4 {
					select {
					case <-q.futs[q.done].Ok():
						q.done++
						continue
					default:
					}
					break
				}
				select {
				case <-q.futs[q.done].Ok():
					q.done++
				case err := <-q.futs[q.done].Err():
					return err
				}
			}
			if q.done < len(q.futs) {
				break
			}
			if err := q.last.Ack(); err != nil {
				return err
			}
			queue = queue[1:]
		}
	}
}
