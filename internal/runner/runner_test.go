package runner_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// start runs a runner against the server behind nc until the test ends.
func start(t *testing.T, nc *nats.Conn, partitions int) {
	t.Helper()
	startChain(t, nc, guard.Chain(guard.DefaultPolicy()), partitions)
}

// startChain runs a runner of chain against the server behind nc until the
// returned stop is called or the test ends.
func startChain(t *testing.T, nc *nats.Conn, chain *processors.Chain, partitions int, opts ...runner.Option) (stop func()) {
	t.Helper()
	cfg := runner.DefaultConfig(partitions)
	cfg.AckWait = 2 * time.Second
	cfg.PublishTimeout = time.Second
	return runnertest.Start(t, nc, chain, cfg, opts...)
}

func publish(t *testing.T, js jetstream.JetStream, ev event.Event) {
	t.Helper()
	natstest.PublishEvent(t, js, ev)
}

func TestLoopingRun(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	start(t, nc, 4)

	h := processortest.NewHistory("acme", "looper")
	for range 5 {
		h.Call("read_file", `{"path":"a.go"}`).Result(false, "x")
	}
	for _, ev := range h.Events() {
		publish(t, js, ev)
	}
	msgs := natstest.WaitMessages(t, js, streams.ControlStream, 11) // 5 verdicts, 1 advice, 4 outputs, the late result's stale
	var kinds []string
	for _, m := range msgs {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, fmt.Sprintf("%s@%d", d.Kind, d.Seq))
	}
	want := "[allow@2 output@3 allow@4 output@5 advise@6 allow@6 output@7 allow@8 output@9 stop@10 stale@11]"
	if fmt.Sprint(kinds) != want {
		t.Errorf("decisions %v, want %s", kinds, want)
	}
}

// TestBackpressure: acknowledgements come back slowly and a partition may
// have only two events in flight: the partitions wait for the server
// instead of failing, and every decision is published once.
func TestBackpressure(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	px := newProxy(t, s.Addr().String())
	nc, err := nats.Connect(px.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var logs runnertest.Buffer
	cfg := runner.DefaultConfig(natstest.Provision(t, js, nil).Partitions)
	cfg.MaxInflight = 2
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()

	px.setDelay(300 * time.Millisecond) // within the publish timeout
	const runs, calls = 2, 6
	for i := range runs {
		h := processortest.NewHistory("acme", fmt.Sprintf("r%d", i))
		for k := range calls {
			tool := []string{"read_file", "grep", "list_dir"}[k%3]
			h.Call(tool, fmt.Sprintf(`{"path":"f%d.go"}`, k)).Result(false, "x")
		}
		for _, ev := range h.Events() {
			if _, err := js.PublishAsync(mustSubject(t, ev), event.AppendEvent(nil, &ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	<-js.PublishAsyncComplete()
	msgs := natstest.WaitMessages(t, js, streams.ControlStream, 2*runs*calls) // a verdict and an output per call
	ids := map[string]bool{}
	for _, m := range msgs {
		id := m.Header.Get(jetstream.MsgIDHeader)
		if ids[id] {
			t.Errorf("decision %s published twice", id)
		}
		ids[id] = true
	}
	px.setDelay(0)
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
	if strings.Contains(logs.String(), "partition failed") {
		t.Errorf("a partition failed under backpressure:\n%s", logs.String())
	}
}

func mustSubject(t *testing.T, ev event.Event) string {
	t.Helper()
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		t.Fatal(err)
	}
	return subj
}

// TestConsumersOfAnEarlierVersionAreUpgraded: partition consumers created
// without a priority group, as before instances shared partitions, gain
// it when a runner starts, and keep where they were.
func TestConsumersOfAnEarlierVersionAreUpgraded(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := natstest.Provision(t, js, nil)
	ctx := context.Background()
	for p := range cfg.Partitions {
		_, err := js.CreateConsumer(ctx, streams.EventStream, jetstream.ConsumerConfig{
			Durable: streams.ConsumerName(p), FilterSubject: streams.PartitionFilter(p),
			DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: 1,
			AckPolicy: jetstream.AckAllPolicy, AckWait: 10 * time.Second, MaxAckPending: 1024, MaxDeliver: -1,
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	start(t, nc, cfg.Partitions)
	h := processortest.NewHistory("acme", "upgraded")
	h.Call("read_file", `{"path":"a.go"}`)
	for _, ev := range h.Events() {
		publish(t, js, ev)
	}
	natstest.WaitMessages(t, js, streams.ControlStream, 1)
	// Each partition upgrades its own consumer as it starts: the one that
	// answered may be the only one done yet.
	deadline := time.Now().Add(10 * time.Second)
	for p := 0; p < cfg.Partitions; {
		c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
		if err != nil {
			t.Fatal(err)
		}
		cc := c.CachedInfo().Config
		if cc.PriorityPolicy == jetstream.PriorityPolicyPinned && len(cc.PriorityGroups) == 1 && cc.OptStartSeq == 1 {
			p++
			continue
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumer %s: priority %v, groups %v, start %d after 10 s; want pinned, [%s], 1",
				cc.Durable, cc.PriorityPolicy, cc.PriorityGroups, cc.OptStartSeq, streams.PriorityGroup)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// checkpoints records the runner's checkpoint reports.
type checkpoints struct {
	runner.NopObserver
	mu sync.Mutex
	at map[int][]time.Time
}

func (c *checkpoints) Checkpointed(p int, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[int][]time.Time{}
	}
	c.at[p] = append(c.at[p], at)
}

func (c *checkpoints) first(p int) (time.Time, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.at[p]) == 0 {
		return time.Time{}, false
	}
	return c.at[p][0], true
}

// TestRecoveryReportsTheStoredCheckpoint: a runner that recovers a
// partition reports the checkpoint it recovered from as written when it
// was stored, so the checkpoint age counts from there.
func TestRecoveryReportsTheStoredCheckpoint(t *testing.T) {
	nc, js := onePartition(t)
	stop := startChain(t, nc, guard.Chain(guard.DefaultPolicy()), 1)
	h := processortest.NewHistory("acme", "r1")
	h.Call("read_file", `{"path":"a.go"}`)
	for _, ev := range h.Events() {
		publish(t, js, ev)
	}
	natstest.WaitMessages(t, js, streams.ControlStream, 1)
	stop() // hands the partition over: a checkpoint
	stored := time.Now()
	time.Sleep(1100 * time.Millisecond)

	obs := &checkpoints{}
	startChain(t, nc, guard.Chain(guard.DefaultPolicy()), 1, runner.WithObserver(obs))
	h.Call("read_file", `{"path":"b.go"}`)
	publish(t, js, h.Events()[len(h.Events())-1])
	natstest.Eventually(t, 10*time.Second, func() error {
		at, ok := obs.first(0)
		switch {
		case !ok:
			return errors.New("no checkpoint reported yet")
		case at.After(stored):
			return fmt.Errorf("recovery reported a checkpoint written at %v, after the first runner stopped at %v", at, stored)
		}
		return nil
	})
}

// TestIdleCheckpointCompletes: a partition that goes quiet with many runs
// changed writes their checkpoint in slices, one after another, not one
// slice per tick (which would take 79 ticks).
func TestIdleCheckpointCompletes(t *testing.T) {
	nc, js := onePartition(t)
	ctx := context.Background()
	cfg := runner.DefaultConfig(1)
	cfg.AckWait, cfg.PublishTimeout, cfg.CheckpointInterval = 2*time.Second, time.Second, time.Second
	runnertest.Start(t, nc, guard.Chain(guard.DefaultPolicy()), cfg)
	const runs = 5000 // 79 slices, more than half the publisher's ring
	for i := range runs {
		h := processortest.NewHistory("acme", fmt.Sprintf("r%d", i))
		h.Call("read_file", `{"path":"a.go"}`)
		for _, ev := range h.Events() {
			if _, err := js.PublishAsync(mustSubject(t, ev), event.AppendEvent(nil, &ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	<-js.PublishAsyncComplete()
	es, err := js.Stream(ctx, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	last := strconv.FormatUint(es.CachedInfo().State.LastSeq, 10)
	natstest.WaitMessages(t, js, streams.ControlStream, runs)
	quiet := time.Now()
	kv, err := js.KeyValue(ctx, streams.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	// Generous for the race detector on a busy machine; far below 79 ticks.
	natstest.Eventually(t, 30*time.Second, func() error {
		e, err := kv.Get(ctx, streams.CheckpointKey(0))
		if err != nil {
			return err
		}
		if seq, _, _ := strings.Cut(string(e.Value()), " "); seq != last {
			return fmt.Errorf("the checkpoint is at event %s, the last event is %s", seq, last)
		}
		return nil
	})
	st, err := kv.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Values() < runs {
		t.Errorf("guard_runs holds %d values after the checkpoint, want the %d runs' snapshots", st.Values(), runs)
	}
	t.Logf("checkpoint of %d runs done %v after the partition went quiet", runs, time.Since(quiet).Round(time.Millisecond))
}

// onePartition starts a server with the streams provisioned for one
// partition, in memory, and connects to it.
func onePartition(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	sc := streams.DefaultConfig()
	sc.Partitions, sc.Memory = 1, true
	natstest.Provision(t, js, &sc)
	return nc, js
}

// batches counts the batches the runner settled.
type batches struct {
	runner.NopObserver
	n atomic.Int64
}

func (b *batches) Batch(int, int, time.Duration) { b.n.Add(1) }

// TestAcksAreCoalesced: a partition acks the last batch it settled
// (AckAll) once an eighth of its in-flight limit waits for an ack, or once
// the first of them has waited runner.AckDelay, so one ack covers many
// batches whether they pile up in flight (acknowledgements slowed down) or
// trickle in one event at a time with nothing in flight between them; and
// the consumer ends with every event acked.
func TestAcksAreCoalesced(t *testing.T) {
	for _, c := range []struct {
		name     string
		delay    time.Duration // added to everything the server sends the runner
		interval time.Duration // between events
	}{
		{"publishes in flight", 20 * time.Millisecond, time.Millisecond / 2},
		{"a trickle", 0, 5 * time.Millisecond},
	} {
		t.Run(c.name, func(t *testing.T) {
			events, batches, acks, took := countAcks(t, c.delay, c.interval)
			t.Logf("%d events in %d batches over %v, %d acks", events, batches, took, acks)
			// An ack falls due AckDelay after the first event it covers
			// was handled, and that event's decisions are acknowledged
			// up to delay later than it was handled: acks come at least
			// AckDelay-delay apart, give or take the scheduler (10 %).
			gap := runner.AckDelay - c.delay
			if most := int64(float64(took)/float64(gap)*1.1) + 2; acks == 0 || acks >= batches || acks > most {
				t.Errorf("%d acks for %d batches over %v: want fewer than the batches and at most %d", acks, batches, took, most)
			}
		})
	}
}

// countAcks sends a partition the interleaved calls of a few runs, one
// event every interval, through a proxy that delays what the server sends
// the runner, and waits until the consumer has every event acked. It
// returns how many events, batches settled and acks there were, and how
// long from the first event to the last ack.
func countAcks(t *testing.T, delay, interval time.Duration) (events uint64, settled, acks int64, took time.Duration) {
	s := natstest.RunServer(t, "")
	direct, js := natstest.Connect(t, s)
	sc := streams.DefaultConfig()
	sc.Partitions, sc.Memory = 1, true
	natstest.Provision(t, js, &sc)
	var n atomic.Int64
	sub, err := direct.Subscribe("$JS.ACK."+streams.EventStream+".>", func(*nats.Msg) { n.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	px := newProxy(t, s.Addr().String())
	nc, err := nats.Connect(px.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var obs batches
	startChain(t, nc, guard.Chain(guard.DefaultPolicy()), 1, runner.WithObserver(&obs))

	px.setDelay(delay)
	const runs, calls = 4, 40
	evs := make([][]event.Event, runs)
	for i := range evs {
		h := processortest.NewHistory("acme", fmt.Sprintf("r%d", i))
		for k := range calls {
			h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, k)).Result(false, "x")
		}
		evs[i] = h.Events()
	}
	start := time.Now()
	for k := range evs[0] {
		for i := range runs {
			ack, err := js.Publish(context.Background(), mustSubject(t, evs[i][k]), event.AppendEvent(nil, &evs[i][k]))
			if err != nil {
				t.Fatal(err)
			}
			events = ack.Sequence
			time.Sleep(interval)
		}
	}
	cons, err := js.Consumer(context.Background(), streams.EventStream, streams.ConsumerName(0))
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		info, err := cons.Info(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if info.AckFloor.Stream == events && info.NumAckPending == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the consumer acked up to %d of %d, %d pending", info.AckFloor.Stream, events, info.NumAckPending)
		}
		time.Sleep(5 * time.Millisecond)
	}
	took = time.Since(start)
	if err := direct.Flush(); err != nil {
		t.Fatal(err)
	}
	return events, obs.n.Load(), n.Load(), took
}
