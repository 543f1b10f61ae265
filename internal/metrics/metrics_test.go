package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/streams"
	dto "github.com/prometheus/client_model/go"
)

// sample finds the value of the series name{labels} in m's registry, or
// reports that it is absent.
func sample(t *testing.T, m *Metrics, name string, labels ...string) (float64, bool) {
	t.Helper()
	families, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, s := range f.GetMetric() {
			for i := 0; i+1 < len(labels); i += 2 {
				if !hasLabel(s, labels[i], labels[i+1]) {
					continue series
				}
			}
			switch {
			case s.Counter != nil:
				return s.Counter.GetValue(), true
			case s.Gauge != nil:
				return s.Gauge.GetValue(), true
			case s.Histogram != nil:
				return float64(s.Histogram.GetSampleCount()), true
			}
		}
	}
	return 0, false
}

func hasLabel(s *dto.Metric, name, value string) bool {
	for _, l := range s.GetLabel() {
		if l.GetName() == name && l.GetValue() == value {
			return true
		}
	}
	return false
}

func TestObserverCounts(t *testing.T) {
	m := New(4)
	for range 3 {
		m.Applied(event.KindCall)
	}
	m.Applied(event.KindResult)
	m.Decided(event.Allow, "")
	m.Decided(event.Allow, "")
	m.Decided(event.Stop, event.ReasonLoopDetected)
	m.DeadLettered(streams.DeadInvalid)
	m.Batch(0, 10, 3*time.Millisecond)
	m.Gap(1, 100, 149)
	m.Panicked("loop")

	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"guardstream_events_total", []string{"kind", "call"}, 3},
		{"guardstream_events_total", []string{"kind", "result"}, 1},
		{"guardstream_events_total", []string{"kind", "heartbeat"}, 0},
		{"guardstream_decisions_total", []string{"kind", "allow", "reason", "none"}, 2},
		{"guardstream_decisions_total", []string{"kind", "stop", "reason", "LOOP_DETECTED"}, 1},
		{"guardstream_dead_letters_total", []string{"reason", "invalid"}, 1},
		{"guardstream_batch_duration_seconds", nil, 1},
		{"guardstream_recovery_gaps_total", nil, 1},
		{"guardstream_recovery_gap_events_total", nil, 50},
		{"guardstream_panics_recovered_total", []string{"guard", "loop"}, 1},
	} {
		got, ok := sample(t, m, c.name, c.labels...)
		if !ok || got != c.want {
			t.Errorf("%s%v = %v (present %v), want %v", c.name, c.labels, got, ok, c.want)
		}
	}
	if _, ok := sample(t, m, "guardstream_dead_letters_total", "reason", "oversize"); ok {
		t.Error("a dead-letter reason never seen has a series")
	}
}

// TestReadiness follows one partition through the ownership calls the
// runner makes: taken, recovered, given up.
func TestReadiness(t *testing.T) {
	m := New(4)
	if r := m.Recovering(); len(r) != 0 {
		t.Fatalf("nothing owned yet, recovering %v", r)
	}
	m.Owned(2, true)
	m.Owned(3, true)
	if r := m.Recovering(); len(r) != 2 || r[0] != 2 || r[1] != 3 {
		t.Fatalf("two partitions just taken: recovering %v", r)
	}
	m.Recovered(2)
	m.Checkpointed(2, time.Now().Add(-3*time.Second))
	if r := m.Recovering(); len(r) != 1 || r[0] != 3 {
		t.Fatalf("partition 2 recovered: recovering %v", r)
	}
	if got, _ := sample(t, m, "guardstream_partitions_owned"); got != 2 {
		t.Errorf("partitions owned %v, want 2", got)
	}
	if got, _ := sample(t, m, "guardstream_partitions_recovering"); got != 1 {
		t.Errorf("partitions recovering %v, want 1", got)
	}
	if age, ok := sample(t, m, "guardstream_checkpoint_age_seconds", "partition", "2"); !ok || age < 3 || age > 60 {
		t.Errorf("checkpoint age of partition 2: %v (present %v), want about 3s", age, ok)
	}
	m.Owned(3, false)
	m.Owned(99, true) // out of range: ignored
	if r := m.Recovering(); len(r) != 0 {
		t.Errorf("partition 3 given up: recovering %v", r)
	}
	out, err := m.Registry().Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range out {
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if strings.Contains(l.GetName(), "run") || strings.Contains(l.GetName(), "tenant") {
					t.Errorf("%s has a %s label", f.GetName(), l.GetName())
				}
			}
		}
	}
}

// TestCheckpointAge: an owned partition reports the age of the checkpoint
// it last stored or recovered from, and none again once it is taken anew
// until it recovers; one that never checkpointed reports none.
func TestCheckpointAge(t *testing.T) {
	written := time.Now().Add(-3 * time.Second) // as a recovered checkpoint's stored time
	m := New(2)
	m.Owned(0, true)
	m.Owned(1, true)
	m.Checkpointed(1, written)
	age := func(p string) (float64, bool) {
		return sample(t, m, "guardstream_checkpoint_age_seconds", "partition", p)
	}
	if a, ok := age("1"); !ok || a < 3 || a > 4 {
		t.Errorf("partition 1, recovered from a checkpoint stored 3s ago: age %v (present %v)", a, ok)
	}
	if a, ok := age("0"); ok {
		t.Errorf("partition 0 never checkpointed: age %v, want none", a)
	}
	m.Checkpointed(1, time.Now())
	if a, _ := age("1"); a > 0.5 {
		t.Errorf("partition 1 just checkpointed: age %v", a)
	}
	m.Owned(1, false)
	m.Owned(1, true)
	if a, ok := age("1"); ok {
		t.Errorf("partition 1 taken anew, not recovered yet: age %v, want none", a)
	}
}

// TestInflightLimit: an owned partition reports the events it keeps in
// flight at most as its tenure last set them, and none once it is given
// up or taken anew, until the new tenure reports.
func TestInflightLimit(t *testing.T) {
	m := New(2)
	limit := func(p string) (float64, bool) {
		return sample(t, m, "guardstream_inflight_limit", "partition", p)
	}
	m.Owned(1, true)
	if l, ok := limit("1"); ok {
		t.Errorf("partition 1 taken, no tenure report yet: limit %v, want none", l)
	}
	m.Inflight(1, 1024)
	m.Inflight(1, 512)
	if l, ok := limit("1"); !ok || l != 512 {
		t.Errorf("partition 1 halved to 512: limit %v (present %v)", l, ok)
	}
	m.Inflight(0, 1024) // not owned: recorded, not reported
	if l, ok := limit("0"); ok {
		t.Errorf("partition 0 not owned: limit %v, want none", l)
	}
	m.Owned(1, false)
	m.Owned(1, true)
	if l, ok := limit("1"); ok {
		t.Errorf("partition 1 taken anew: limit %v, want none until its tenure reports", l)
	}
	m.Inflight(7, 64) // out of range: ignored
}

// TestObservingAllocatesNothing: the calls the runner makes per event and
// per batch allocate nothing once a label has been seen.
func TestObservingAllocatesNothing(t *testing.T) {
	m := New(16)
	m.Decided(event.Reject, event.ReasonPolicyViolation)
	m.DeadLettered(streams.DeadInvalid)
	allocs := testing.AllocsPerRun(1000, func() { observeEvent(m) })
	if allocs != 0 {
		t.Errorf("observing one event allocates %v times, want 0", allocs)
	}
}

// observeEvent is what the runner reports for a typical event and its
// batch.
func observeEvent(o runner.Observer) {
	o.Applied(event.KindCall)
	o.Decided(event.Allow, "")
	o.Decided(event.Reject, event.ReasonPolicyViolation)
	o.DeadLettered(streams.DeadInvalid)
	o.Batch(3, 1, time.Millisecond)
	o.Checkpointed(3, time.Unix(1, 0))
}

// BenchmarkObserveEvent measures the Observer calls of one event against
// the runner's default, NopObserver, as the baseline in the same run.
func BenchmarkObserveEvent(b *testing.B) {
	for _, o := range []struct {
		name string
		obs  runner.Observer
	}{{"nop", runner.NopObserver{}}, {"metrics", New(16)}} {
		b.Run(o.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				observeEvent(o.obs)
			}
		})
		b.Run(o.name+"/parallel", func(b *testing.B) {
			b.ReportAllocs()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					observeEvent(o.obs)
				}
			})
		})
	}
}
