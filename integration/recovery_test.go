package integration

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRecoveryGap: guard-consumer writes a checkpoint, then consumes and
// acks more events without another, and is killed; events of partition 0
// between the checkpoint and the ack floor are deleted from the stream.
// The restart recovers what exists, reports what it can see of the gap as
// a dead letter naming the partition and the range, in its log and in
// guardstream_recovery_gaps_total, and every run, those that lost events
// included, gets decisions for its later events.
//
// The runner sees the sequences the stream no longer holds, and counts the
// consumer's deliveries against the partition's events it finds
// (internal/runner/recover.go, replay): the range it reports spans the
// deleted sequences, which only partition 0 had delivered, so partition 1
// reports none.
func TestRecoveryGap(t *testing.T) {
	if testing.Short() {
		t.Skip("runs guard-consumer processes")
	}
	for _, tc := range []struct {
		name  string
		purge func(ours []uint64) []uint64 // of partition 0's events after the checkpoint, those to delete
	}{
		{name: "the last half before the ack floor", purge: func(ours []uint64) []uint64 { return ours[len(ours)/2:] }},
		{name: "the middle third", purge: func(ours []uint64) []uint64 { return ours[len(ours)/3 : 2*len(ours)/3] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recoveryGap(t, tc.purge)
		})
	}
}

// recoveryGap runs TestRecoveryGap with the events purge picks deleted.
func recoveryGap(t *testing.T, purge func(ours []uint64) []uint64) {
	ctx := context.Background()
	s := newSystem(t, 2)
	runs := make([]*processortest.History, 16)
	for k := range runs {
		runs[k] = processortest.NewHistory("gap", fmt.Sprintf("run-%d", k))
	}
	// publish adds n calls and their results to every run, interleaved.
	publish := func(n int) {
		for i := range n {
			for _, h := range runs {
				from := len(h.Events())
				if i == 0 && from == 1 {
					from = 0 // the run start too
				}
				h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, h.Seq())).Result(false, "ok")
				for _, ev := range h.Events()[from:] {
					natstest.PublishEvent(t, s.js, ev)
				}
			}
		}
	}

	first := s.startProcessWith("-checkpoint-interval", "1h")
	publish(4)
	s.settle()
	first.term(t, 5*time.Second) // hands the partitions over: checkpoints
	cp := checkpointOf(t, s.js, 0)
	second := s.startProcessWith("-checkpoint-interval", "1h")
	publish(8)
	s.settle()
	second.kill() // no checkpoint since the first's
	floor := ackFloor(t, s.js, 0)
	if got := checkpointOf(t, s.js, 0); cp == 0 || got != cp || floor <= cp {
		t.Fatalf("partition 0: checkpoint %d then %d, ack floor %d; want one checkpoint below the ack floor", cp, got, floor)
	}
	ours := partitionSeqs(t, s.js, 0, cp+1, floor)
	gone := purge(ours)
	es, err := s.js.Stream(ctx, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	for _, seq := range gone {
		if err := es.DeleteMsg(ctx, seq); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("partition 0: checkpoint at %d, ack floor %d, its %d events between at %d..%d; deleted %d of them, %d..%d",
		cp, floor, len(ours), ours[0], ours[len(ours)-1], len(gone), gone[0], gone[len(gone)-1])

	third := s.startProcessWith("-http", "127.0.0.1:0")
	metrics := field(third.since(0, "serving /livez")[0], "http") + "/metrics"
	gapsBefore := metric(t, metrics, "guardstream_recovery_gaps_total")
	before := len(s.all(streams.ControlStream))
	// A partition is recovered by whoever the server pins it to, which it
	// does when it has an event to deliver: new events trigger it.
	calls := map[string]string{} // run -> its new call
	for _, h := range runs {
		ev := h.Call("read_file", `{"path":"later.go"}`).Events()[len(h.Events())-1]
		calls[h.Run] = ev.Call
		natstest.PublishEvent(t, s.js, ev)
	}
	gaps := s.msgs(streams.DeadLetterStream, 1)
	g := gaps[0]
	from, _ := strconv.ParseUint(g.Header.Get(streams.HeaderFirst), 10, 64)
	to, _ := strconv.ParseUint(g.Header.Get(streams.HeaderLast), 10, 64)
	t.Logf("gap reported on %s: partition %s, sequences %d to %d: %s", g.Subject, g.Header.Get(streams.HeaderPartition),
		from, to, g.Header.Get(streams.HeaderError))
	if g.Subject != streams.DeadLetterSubject(streams.DeadGap) || g.Header.Get(streams.HeaderPartition) != "0" {
		t.Errorf("want a gap of partition 0")
	}
	// The range names exactly the deleted events of the partition: all of
	// them, and none that survived (others' sequences may lie between).
	for _, seq := range ours {
		if in, deleted := seq >= from && seq <= to, slices.Contains(gone, seq); in != deleted {
			t.Errorf("sequence %d of partition 0 (deleted: %v) is in the gap's range: %v", seq, deleted, in)
		}
	}

	// Every run gets a decision on its new call, those that lost events too.
	natstest.Eventually(t, 15*time.Second, func() error {
		for _, m := range s.all(streams.ControlStream)[before:] {
			if d := decode(t, m); calls[d.Run] == d.Call {
				delete(calls, d.Run)
			}
		}
		if len(calls) > 0 {
			return fmt.Errorf("no decision yet on the new calls of %v", slices.Sorted(maps.Keys(calls)))
		}
		return nil
	})
	t.Logf("the %d runs got decisions on their new calls", len(runs))

	gapsAfter := metric(t, metrics, "guardstream_recovery_gaps_total")
	t.Logf("guardstream_recovery_gaps_total %v -> %v, guardstream_recovery_gap_events_total %v", gapsBefore, gapsAfter,
		metric(t, metrics, "guardstream_recovery_gap_events_total"))
	if gapsAfter != gapsBefore+1 {
		t.Errorf("guardstream_recovery_gaps_total went from %v to %v, want one more", gapsBefore, gapsAfter)
	}
	if n := third.count("events may be gone"); n != 1 {
		t.Errorf("%d gaps logged, want 1:\n%s", n, third.output())
	}
	took := third.term(t, 5*time.Second)
	t.Logf("SIGTERM returned in %v", took.Round(time.Millisecond))
}

// checkpointOf returns partition p's checkpoint, 0 if it has none.
func checkpointOf(t *testing.T, js jetstream.JetStream, p int) uint64 {
	t.Helper()
	ctx := context.Background()
	kv, err := js.KeyValue(ctx, streams.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	e, err := kv.Get(ctx, streams.CheckpointKey(p))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	text, _, _ := strings.Cut(string(e.Value()), " ") // "<seq> <consumer seq>"
	seq, err := strconv.ParseUint(text, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

// ackFloor returns the stream sequence of partition p's ack floor.
func ackFloor(t *testing.T, js jetstream.JetStream, p int) uint64 {
	t.Helper()
	c, err := js.Consumer(context.Background(), streams.EventStream, streams.ConsumerName(p))
	if err != nil {
		t.Fatal(err)
	}
	return c.CachedInfo().AckFloor.Stream
}

// partitionSeqs returns the stream sequences of partition p's events from
// from to to.
func partitionSeqs(t *testing.T, js jetstream.JetStream, p int, from, to uint64) []uint64 {
	t.Helper()
	var seqs []uint64
	for _, m := range natstest.Messages(t, js, streams.EventStream) {
		if st, err := streams.ParseStored(m.Subject); err == nil && st.Partition == p && m.Sequence >= from && m.Sequence <= to {
			seqs = append(seqs, m.Sequence)
		}
	}
	if len(seqs) < 3 {
		t.Fatalf("partition %d holds %d events from %d to %d; the test needs more", p, len(seqs), from, to)
	}
	return seqs
}

// metric returns the value of the series name, without labels, on a
// Prometheus page at url.
func metric(t *testing.T, url, name string) float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	page, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(page), "\n") {
		if v, ok := strings.CutPrefix(l, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("%s has no %s", url, name)
	return 0
}

// TestMissingAssetsRecreated deletes the partition consumers, then the
// control stream, under a running guard-consumer: each is re-created, with
// a warning naming it, and events go on getting verdicts, without a
// restart and without a loop of failures.
func TestMissingAssetsRecreated(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a guard-consumer process")
	}
	ctx := context.Background()
	s := newSystem(t, 2)
	p := s.startProcess()
	calls := 0
	call := func() {
		t.Helper()
		h := processortest.NewHistory("assets", fmt.Sprintf("run-%d", calls))
		h.Call("read_file", `{"path":"a.go"}`)
		for _, ev := range h.Events() {
			natstest.PublishEvent(t, s.js, ev)
		}
		calls++
	}
	verdicts := func(want int) {
		t.Helper()
		s.msgs(streams.ControlStream, want)
	}
	call()
	verdicts(1)

	for part := range 2 {
		if err := s.js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(part)); err != nil {
			t.Fatal(err)
		}
	}
	natstest.Eventually(t, 10*time.Second, func() error {
		if n := p.count("consumer was missing; re-created it"); n < 2 {
			return fmt.Errorf("%d consumers re-created", n)
		}
		return nil
	})
	call()
	call()
	verdicts(3)
	t.Logf("consumers deleted and re-created; new calls got verdicts")
	// Their events are acked within runner.AckDelay of their verdicts'
	// storing. One not acked yet when the stream goes would be redone, and
	// its verdict stored again in the new stream, whose duplicate window
	// starts empty.
	natstest.Eventually(t, 10*time.Second, func() error {
		for part := range 2 {
			c, err := s.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(part))
			if err != nil {
				return err
			}
			if n := c.CachedInfo().NumAckPending; n > 0 {
				return fmt.Errorf("partition %d: %d events not acked", part, n)
			}
		}
		return nil
	})

	if err := s.js.DeleteStream(ctx, streams.ControlStream); err != nil {
		t.Fatal(err)
	}
	call()
	call()
	natstest.Eventually(t, 10*time.Second, func() error {
		if p.count("stream was missing; re-created it") == 0 {
			return fmt.Errorf("%s not re-created yet", streams.ControlStream)
		}
		return nil
	})
	verdicts(2)
	t.Logf("%s deleted and re-created; the calls made meanwhile got verdicts", streams.ControlStream)
	select {
	case <-p.done:
		t.Fatalf("guard-consumer exited:\n%s", p.output())
	default:
	}
	if n := p.count("partition failed"); n > 4 {
		t.Errorf("%d partition failures logged, want at most one per partition and asset:\n%s", n, p.output())
	}
	for _, l := range []string{"consumer was missing", "stream was missing", "partition failed"} {
		t.Logf("%q logged %d times", l, p.count(l))
	}
}

// TestSIGTERMDuringRecovery stops guard-consumer with SIGTERM while it
// replays a long backlog, 40,000 events of 10,000 runs acked since the
// last checkpoint: it exits within 5 s, without finishing the replay. A
// restart then recovers the partition in full.
//
// The backlog is set up as a crash would leave it, but without running a
// guard-consumer through it first: the partition's consumer is created
// with every event acked, and there is no checkpoint.
func TestSIGTERMDuringRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("runs guard-consumer processes")
	}
	ctx := context.Background()
	s := newSystem(t, 1)
	msgs := (bench.Mix{Tenant: "slow", Runs: 10_000, Events: 40_000, Payload: 100}).Messages()
	for i, m := range msgs {
		if _, err := s.js.PublishAsync(m.Subject, m.Data); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 999 || i == len(msgs)-1 { // within nats.go's bound on publishes outstanding
			select {
			case <-s.js.PublishAsyncComplete():
			case <-time.After(time.Minute):
				t.Fatal("publishing the backlog stalled for a minute")
			}
		}
	}
	last := uint64(len(msgs))
	cc := streams.PartitionConsumer{AckWait: 2 * time.Second, MaxAckPending: 1024, PinnedTTL: runner.DefaultConfig(1).PinnedTTL}
	if _, err := s.js.CreateConsumer(ctx, streams.EventStream, cc.Config(0, last+1)); err != nil {
		t.Fatal(err)
	}
	if floor := ackFloor(t, s.js, 0); floor != last || checkpointOf(t, s.js, 0) != 0 {
		t.Fatalf("ack floor %d and checkpoint %d; want %d and none", floor, checkpointOf(t, s.js, 0), last)
	}
	trigger := func(run string) {
		h := processortest.NewHistory("slow", run)
		natstest.PublishEvent(t, s.js, h.Events()[0])
	}

	p := s.startProcess()
	trigger("first")
	natstest.Eventually(t, 20*time.Second, func() error {
		if p.count("replaying from the checkpoint") == 0 {
			return errors.New("not replaying yet")
		}
		return nil
	})
	took := p.term(t, 5*time.Second)
	t.Logf("SIGTERM while replaying %d events: exited in %v", last, took.Round(time.Millisecond))
	if p.count("shutting down") == 0 || p.count("runner stopped") == 0 {
		t.Errorf("guard-consumer did not stop on SIGTERM:\n%s", p.output())
	}
	if n := p.count("partition left"); n != 0 {
		t.Errorf("the replay was over before SIGTERM (%d partitions left after recovering); the test needs a longer one", n)
	}

	q := s.startProcessWith("-http", "127.0.0.1:0")
	ready := field(q.since(0, "serving /livez")[0], "http") + "/readyz"
	trigger("second")
	natstest.Eventually(t, 20*time.Second, func() error {
		if q.count("replaying from the checkpoint") == 0 {
			return errors.New("not replaying yet")
		}
		return nil
	})
	begun := time.Now()
	natstest.Eventually(t, time.Minute, func() error {
		resp, err := http.Get(ready)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("/readyz: %d %s", resp.StatusCode, body)
		}
		return nil
	})
	t.Logf("a restart replayed the %d events and was ready %v after it began", last, time.Since(begun).Round(time.Millisecond))
}
