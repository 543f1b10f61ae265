package bench

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// loopKind is how a verdict loop answers and acks.
type loopKind int

const (
	// floorLoop answers with a core publish into the answer stream and
	// acks nothing (AckNone): the least JetStream does for an answer.
	floorLoop loopKind = iota
	// exactLoop has guard-consumer's guarantees, as simply and as fast as
	// it can: see baseline.go.
	exactLoop
	// lockstepLoop is the baseline before issue 14, held to the runner's
	// limits of the time: see lockstep.go.
	lockstepLoop
)

// pullHeartbeat is how often the server reports a waiting pull. As in the
// runner, 1 s bounds the stall nats.go (v1.55) can fall into when a pull is
// answered before it notes that the pull went out.
const pullHeartbeat = time.Second

// answerBytes is how much of an event a loop's answer echoes: about a
// verdict's size, and the tag a latency window put first.
const answerBytes = 64

// loop is a verdict loop on its own pair of streams: the events' stream,
// partitioned as AGENT_EVENTS is (by tenant and run), and the answers'.
// Per partition one pull consumer answers each event, in stream order,
// with one message into the answer stream.
type loop struct {
	name       string // the token in its subjects and stream names: "base", "js1", ...
	kind       loopKind
	partitions int
	window     int // events delivered and not yet acked, per partition: MaxAckPending
	batch      int // events per pull request
}

// loops are the verdict loops the guard is measured against: the old
// baseline, the baseline, and the JetStream floors with one partition and
// with the guard's partitions.
type loops struct {
	old, base, floor1, floorN *loop
}

func newLoops(cfg Config) loops {
	return loops{
		old:    &loop{name: "old", kind: lockstepLoop, partitions: cfg.Partitions},
		base:   &loop{name: "base", kind: exactLoop, partitions: cfg.Partitions, window: cfg.BaseWindow, batch: cfg.BaseBatch},
		floor1: &loop{name: "js1", kind: floorLoop, partitions: 1, batch: cfg.BaseBatch},
		floorN: &loop{name: "jsn", kind: floorLoop, partitions: cfg.Partitions, batch: cfg.BaseBatch},
	}
}

func (ls loops) all() []*loop { return []*loop{ls.old, ls.base, ls.floor1, ls.floorN} }

// streams returns the names of the loop's event and answer streams.
func (l *loop) streams() (in, out string) {
	n := "BENCH_" + strings.ToUpper(l.name)
	return n + "_IN", n + "_OUT"
}

// source is the subject prefix events are published to the loop under.
func (l *loop) source() string { return "bench." + l.name + ".in" }

// answers is the filter matching every answer of the loop.
func (l *loop) answers() string { return "bench." + l.name + ".out.>" }

// subject maps an agent event subject, agent.<tenant>.<run>.<kind>, to the
// loop's.
func (l *loop) subject(agent string) string {
	return l.source() + strings.TrimPrefix(agent, "agent")
}

// consumers returns the names of the loop's consumers, by partition.
func (l *loop) consumers() []string {
	names := make([]string, l.partitions)
	for p := range names {
		names[p] = l.name + "-p" + strconv.Itoa(p)
	}
	return names
}

// provision creates the loop's streams and consumers.
func (l *loop) provision(ctx context.Context, js jetstream.JetStream) error {
	in, out := l.streams()
	src := l.source() + ".*.*.*"
	cfgs := []jetstream.StreamConfig{{
		Name:     in,
		Subjects: []string{src},
		SubjectTransform: &jetstream.SubjectTransformConfig{
			Source:      src,
			Destination: l.source() + ".{{partition(" + strconv.Itoa(l.partitions) + ",1,2)}}.{{wildcard(1)}}.{{wildcard(2)}}.{{wildcard(3)}}",
		},
		Storage: jetstream.FileStorage,
	}, {Name: out, Subjects: []string{l.answers()}, Storage: jetstream.FileStorage}}
	for _, c := range cfgs {
		if _, err := js.CreateOrUpdateStream(ctx, c); err != nil {
			return err
		}
	}
	for p, name := range l.consumers() {
		cc := jetstream.ConsumerConfig{Durable: name, FilterSubject: l.source() + "." + strconv.Itoa(p) + ".>", AckPolicy: jetstream.AckNonePolicy}
		if l.partitions == 1 {
			cc.FilterSubject = ">" // as guard-consumer's lone partition does (streams.PartitionConsumer)
		}
		switch l.kind {
		case exactLoop:
			cc.AckPolicy, cc.MaxAckPending = jetstream.AckAllPolicy, l.window
		case lockstepLoop:
			cc.AckPolicy, cc.MaxAckPending = jetstream.AckAllPolicy, lockstepBatches*lockstepBatch
		}
		if _, err := js.CreateOrUpdateConsumer(ctx, in, cc); err != nil {
			return err
		}
	}
	return nil
}

// run consumes every partition on nc until ctx ends.
func (l *loop) run(ctx context.Context, nc *nats.Conn) error {
	var wg sync.WaitGroup
	errs := make(chan error, l.partitions)
	for p := range l.partitions {
		wg.Go(func() {
			if err := l.partition(ctx, nc, p); err != nil && ctx.Err() == nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	return <-errs
}

func (l *loop) partition(ctx context.Context, nc *nats.Conn, p int) error {
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	in, _ := l.streams()
	cons, err := js.Consumer(ctx, in, l.consumers()[p])
	if err != nil {
		return err
	}
	subject := "bench." + l.name + ".out." + strconv.Itoa(p)
	switch l.kind {
	case exactLoop:
		return answerExactly(ctx, nc, cons, subject, l.window, l.batch)
	case lockstepLoop:
		return answerInLockstep(ctx, nc, cons, subject)
	}
	return answerFloor(ctx, nc, cons, subject, l.batch)
}

// answerFloor answers each event with a core publish: no message id, no
// publish acknowledgement, no ack.
func answerFloor(ctx context.Context, nc *nats.Conn, cons jetstream.Consumer, subject string, batch int) error {
	return consume(ctx, cons, batch, func(m jetstream.Msg) error { return nc.Publish(subject, echo(m.Data())) }, make(failure, 1))
}

// failure holds the first error of a loop's partition.
type failure chan error

func (f failure) report(err error) {
	select {
	case f <- err:
	default:
	}
}

// consume hands cons's events, pulled in batches of batch, to handle one
// at a time in stream order, until ctx ends or an error is reported to
// failed, handle's included.
func consume(ctx context.Context, cons jetstream.Consumer, batch int, handle func(jetstream.Msg) error, failed failure) error {
	cc, err := cons.Consume(func(m jetstream.Msg) {
		if err := handle(m); err != nil {
			failed.report(err)
		}
	}, jetstream.PullMaxMessages(batch), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return err
	}
	defer cc.Stop()
	select {
	case <-ctx.Done():
		return nil
	case err := <-failed:
		return err
	}
}

// echo returns the answer to an event: its first answerBytes.
func echo(data []byte) []byte { return data[:min(answerBytes, len(data))] }
