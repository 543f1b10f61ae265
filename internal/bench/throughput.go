package bench

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
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
	// CPU and ServerCPU are the CPU time, in µs per event, the
	// benchmark process (the pipeline, and a little polling) and the
	// server child spent during the drain: a cost the other work on a
	// shared machine does not change much, unlike the rate.
	CPU       float64 `json:"cpu_us_per_event"`
	ServerCPU float64 `json:"server_cpu_us_per_event"`
}

// Round is one drain of the same events on fresh runs by each of the old
// baseline, the baseline and the guard, close enough in time that the
// machine's noise touches them alike.
type Round struct {
	Old      Throughput `json:"old_baseline"`
	Baseline Throughput `json:"baseline"`
	Guard    Throughput `json:"guard"`
	// Ratio is the guard's events/s to the baseline's, Gain the
	// baseline's to the old baseline's.
	Ratio float64 `json:"ratio"`
	Gain  float64 `json:"gain"`
}

// drainer is a pipeline a throughput round drains events through.
type drainer struct {
	name      string           // the pipeline, as the server's profiles name it
	subject   func(msg) string // where an agent event is published for it
	stream    string
	consumers []string
	start     func() (*running, error)
}

// measureThroughput measures cfg.Rounds rounds into rep, and takes the
// round with the median ratio as the result. Rounds alternate the order of
// the drains, so that a drift in the machine's speed favours none.
func measureThroughput(ctx context.Context, cfg Config, js jetstream.JetStream, url string, old, base *loop, rep *Report, log io.Writer) error {
	loopDrainer := func(l *loop) drainer {
		in, _ := l.streams()
		return drainer{name: l.name, subject: func(m msg) string { return l.subject(m.subject) }, stream: in, consumers: l.consumers(),
			start: func() (*running, error) { return startLoop(ctx, url, cfg, l) }}
	}
	guardDrain := drainer{name: guardPipeline, subject: agentSubject, stream: streams.EventStream, consumers: guardConsumers(cfg.Partitions),
		start: func() (*running, error) { return startGuard(ctx, url, cfg, slog.NewTextHandler(cfg.log, warnLevel)) }}
	names := []string{"old baseline", "baseline", "guard"}
	for i := range cfg.Rounds {
		mix := Mix{Tenant: tenant, Runs: cfg.Runs, Events: cfg.Events, Payload: cfg.Payload, Prefix: "t" + strconv.Itoa(i) + "-"}
		events := mix.events()
		order := []int{0, 1, 2}
		if i%2 == 1 {
			slices.Reverse(order)
		}
		fmt.Fprintf(log, "throughput round %d of %d: %d events over %d partitions\n", i+1, cfg.Rounds, len(events), cfg.Partitions)
		var tps [3]Throughput
		for _, k := range order {
			d := []drainer{loopDrainer(old), loopDrainer(base), guardDrain}[k]
			tp, err := timeDrain(ctx, cfg, js, events, d, "throughput-"+strconv.Itoa(i+1)+"-"+d.name)
			if err != nil {
				return fmt.Errorf("%s: %w", names[k], err)
			}
			tps[k] = tp
		}
		rep.Rounds = append(rep.Rounds, Round{Old: tps[0], Baseline: tps[1], Guard: tps[2],
			Ratio: tps[2].PerSecond / tps[1].PerSecond, Gain: tps[1].PerSecond / tps[0].PerSecond})
	}
	byRatio := slices.Clone(rep.Rounds)
	slices.SortFunc(byRatio, func(a, b Round) int { return cmp.Compare(a.Ratio, b.Ratio) })
	med := byRatio[len(byRatio)/2]
	rep.Baseline, rep.Guard, rep.Ratio = med.Baseline, med.Guard, med.Ratio
	gains := make([]float64, len(rep.Rounds))
	for i, rd := range rep.Rounds {
		gains[i] = rd.Gain
	}
	rep.Gain = median(gains)
	return nil
}

// timeDrain preloads events, starts d's pipeline and times how long its
// consumers take to handle them all; it stops the pipeline. The drain's
// server profile, if any, is called profile.
func timeDrain(ctx context.Context, cfg Config, js jetstream.JetStream, events []msg, d drainer, profile string) (Throughput, error) {
	if err := phase(ctx, cfg, func(ctx context.Context) error { return preload(ctx, js, events, d.subject) }); err != nil {
		return Throughput{}, err
	}
	before, err := storedMessages(ctx, js)
	if err != nil {
		return Throughput{}, err
	}
	endProfile, err := cfg.profileServer(profile)
	if err != nil {
		return Throughput{}, err
	}
	cpu, began := readCPU(cfg.server.pid()), time.Now()
	r, err := d.start()
	if err != nil {
		return Throughput{}, errors.Join(err, endProfile())
	}
	defer r.stop()
	var done time.Time
	err = phase(ctx, cfg, func(ctx context.Context) (err error) {
		done, err = drain(ctx, js, d.stream, d.consumers)
		return err
	})
	if err != nil {
		return Throughput{}, errors.Join(err, endProfile())
	}
	tp := throughput(len(events), done.Sub(began))
	tp.CPU, tp.ServerCPU = readCPU(cfg.server.pid()).perEvent(cpu, len(events))
	if err := endProfile(); err != nil {
		return Throughput{}, err
	}
	after, err := storedMessages(ctx, js)
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
