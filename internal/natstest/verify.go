package natstest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Record is a decision as GUARD_CONTROL stores it: its subject, its
// Nats-Msg-Id and its bytes. Two runs decided alike when their records
// are equal.
type Record struct {
	Subject, MsgID string
	Data           []byte
}

func (r Record) String() string { return fmt.Sprintf("%s %s %x", r.Subject, r.MsgID, r.Data) }

// Equal reports whether r and o are the same decision, byte for byte.
func (r Record) Equal(o Record) bool {
	return r.Subject == o.Subject && r.MsgID == o.MsgID && bytes.Equal(r.Data, o.Data)
}

// Records returns the records of msgs.
func Records(msgs []*jetstream.RawStreamMsg) []Record {
	out := make([]Record, len(msgs))
	for i, m := range msgs {
		out[i] = Record{Subject: m.Subject, MsgID: m.Header.Get(jetstream.MsgIDHeader), Data: m.Data}
	}
	return out
}

// Control returns the records of every decision GUARD_CONTROL holds, in
// order.
func Control(t testing.TB, js jetstream.JetStream) []Record {
	t.Helper()
	return Records(Messages(t, js, streams.ControlStream))
}

// Settle waits until every partition consumer has acked every event of
// AGENT_EVENTS, for at most timeout.
func Settle(t testing.TB, js jetstream.JetStream, partitions int, timeout time.Duration) {
	t.Helper()
	ctx := context.Background()
	Eventually(t, timeout, func() error {
		s, err := js.Stream(ctx, streams.EventStream)
		if err != nil {
			return err
		}
		for p := range partitions {
			c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
			if err != nil {
				return err
			}
			info, err := c.Info(ctx)
			if err != nil {
				return err
			}
			if info.NumPending > 0 || info.NumAckPending > 0 {
				return fmt.Errorf("partition %d: %d pending, %d unacked", p, info.NumPending, info.NumAckPending)
			}
			// A consumer just created may not have counted what is
			// pending yet: its ack floor must reach the partition's last
			// event too.
			last, err := s.GetLastMsgForSubject(ctx, streams.PartitionFilter(p))
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if info.AckFloor.Stream < last.Sequence {
				return fmt.Errorf("partition %d: acked up to %d, its last event is at %d", p, info.AckFloor.Stream, last.Sequence)
			}
		}
		return nil
	})
}

// Reset forgets all that guard-consumer derived from AGENT_EVENTS — the
// partition consumers, the run state and the decisions — and provisions
// the streams afresh with cfg; the events stay. A single runner started
// afterwards, and left alone until Settle, makes the reference: the
// control stream of an uninterrupted single-instance run over the same
// events. Every guard-consumer must be stopped first.
func Reset(t testing.TB, js jetstream.JetStream, cfg streams.Config) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for p := range cfg.Partitions {
		if err := js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
			t.Fatal(err)
		}
	}
	if err := js.DeleteKeyValue(ctx, streams.RunsBucket); err != nil && !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Fatal(err)
	}
	if err := js.DeleteStream(ctx, streams.ControlStream); err != nil && !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatal(err)
	}
	if err := streams.Provision(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
}

// SameDecisions checks got, a control stream made under faults, against
// want, the reference: every run must have the same decisions in the same
// order, byte for byte and under the same Nats-Msg-Id, and no decision may
// be stored twice. Runs in different partitions interleave differently,
// so only each run's order counts. It returns a summary to log.
func SameDecisions(t testing.TB, got, want []Record) string {
	t.Helper()
	return compareRuns(t, got, want, false)
}

// SameDecisionsStored is SameDecisions for faults that can change the
// order in which the stream stores a run's decisions: a stream's leader
// changing while an instance that is losing a partition still has
// publishes in flight (docs/decisions/0008-ownership.md). Every run must
// have the same decisions, byte for byte and under the same Nats-Msg-Id,
// each stored once; the summary counts the runs stored in another order.
func SameDecisionsStored(t testing.TB, got, want []Record) string {
	t.Helper()
	return compareRuns(t, got, want, true)
}

// compareRuns checks got against want run by run, in the order of each
// run's decisions, or, with anyOrder set, by their ids, counting the runs
// whose order differs.
func compareRuns(t testing.TB, got, want []Record, anyOrder bool) string {
	t.Helper()
	ids := map[string]int{}
	for _, r := range got {
		if ids[r.MsgID]++; ids[r.MsgID] == 2 {
			t.Errorf("decision %s was stored twice", r.MsgID)
		}
	}
	g, w := byRun(t, got), byRun(t, want)
	if len(g) != len(w) {
		t.Errorf("%d runs decided, %d in the reference", len(g), len(w))
	}
	byID := func(rs []Record) []Record {
		rs = slices.Clone(rs)
		slices.SortFunc(rs, func(a, b Record) int { return strings.Compare(a.MsgID, b.MsgID) })
		return rs
	}
	reordered := 0
	for run, wr := range w {
		diff := firstDiff(wr, g[run])
		if diff != "" && anyOrder {
			if diff = firstDiff(byID(wr), byID(g[run])); diff == "" {
				reordered++
			}
		}
		if diff != "" {
			t.Errorf("run %s: %s", run, diff)
		}
	}
	summary := fmt.Sprintf("%d decisions over %d runs, the reference %d over %d", len(got), len(g), len(want), len(w))
	if anyOrder {
		summary += fmt.Sprintf("; %d runs stored in another order", reordered)
	}
	return summary
}

// firstDiff describes the first difference between a run's reference
// decisions and those it got, or returns "".
func firstDiff(want, got []Record) string {
	for i := range max(len(want), len(got)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("decision %d of %d is missing: %s", i, len(want), want[i])
		case i >= len(want):
			return fmt.Sprintf("decision %d is extra: %s", i, got[i])
		case !got[i].Equal(want[i]):
			return fmt.Sprintf("decision %d differs:\nreference %s\ngot       %s", i, want[i], got[i])
		}
	}
	return ""
}

// byRun groups records by run, keeping their order.
func byRun(t testing.TB, rs []Record) map[string][]Record {
	t.Helper()
	out := map[string][]Record{}
	for _, r := range rs {
		var d event.Decision
		if err := event.DecodeDecision(r.Data, &d); err != nil {
			t.Fatalf("decision %s: %v", r.MsgID, err)
		}
		out[d.Tenant+"/"+d.Run] = append(out[d.Tenant+"/"+d.Run], r)
	}
	return out
}
