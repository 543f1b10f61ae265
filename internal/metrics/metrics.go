package metrics

import (
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/streams"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
)

// Namespace starts the name of every guardstream metric.
const Namespace = "guardstream"

// noReason labels a decision that carries no reason, such as an allow.
const noReason = "none"

// BatchBuckets are the bounds, in seconds, of the batch latency histogram:
// 0.5 ms to 8 s.
var BatchBuckets = prometheus.ExponentialBuckets(0.0005, 2, 15)

// Metrics is a runner.Observer that counts into its own Prometheus
// registry. It is safe for concurrent use.
type Metrics struct {
	reg *prometheus.Registry

	events       [256]prometheus.Counter // by event.Kind
	plain        [256]prometheus.Counter // decisions without a reason, by event.DecisionKind
	decisions    *children[decisionKey]  // decisions with a reason
	deadLetters  *children[streams.DeadReason]
	panics       *children[string]
	batch        prometheus.Histogram
	gaps         prometheus.Counter
	gapEvents    prometheus.Counter
	partitionSet *partitions
}

type decisionKey struct {
	kind   event.DecisionKind
	reason event.Reason
}

var _ runner.Observer = (*Metrics)(nil)

// New returns the metrics of an instance that consumes partitions
// partitions, registered with the Go runtime's and the process's own.
func New(partitions int) *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry(), partitionSet: newPartitions(partitions)}
	events := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "events_total",
		Help: "Events applied to their runs, by kind.",
	}, []string{"kind"})
	decisions := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "decisions_total",
		Help: "Decisions published, by kind and reason (none for decisions without one).",
	}, []string{"kind", "reason"})
	deadLetters := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "dead_letters_total",
		Help: "Events sent to the dead letters, by reason.",
	}, []string{"reason"})
	panics := prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "panics_recovered_total",
		Help: "Panics of a guard on one event, recovered: the event was dead-lettered and its run stopped.",
	}, []string{"guard"})
	m.batch = prometheus.NewHistogram(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "batch_duration_seconds",
		Help:    "Time from a batch's first event arriving to everything it caused being stored.",
		Buckets: BatchBuckets,
	})
	m.gaps = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Name: "recovery_gaps_total",
		Help: "Ranges of events found missing when a partition recovered.",
	})
	m.gapEvents = prometheus.NewCounter(prometheus.CounterOpts{
		Namespace: Namespace, Name: "recovery_gap_events_total",
		Help: "Stream sequences the recovery gaps span, other partitions' among them: an upper bound on the events that no longer existed.",
	})
	for k := range 256 {
		m.events[k] = events.WithLabelValues(kindLabel(event.Kind(k)))
		m.plain[k] = decisions.WithLabelValues(decisionLabel(event.DecisionKind(k)), noReason)
	}
	m.decisions = newChildren(func(k decisionKey) prometheus.Counter {
		return decisions.WithLabelValues(decisionLabel(k.kind), string(k.reason))
	})
	m.deadLetters = newChildren(func(r streams.DeadReason) prometheus.Counter {
		return deadLetters.WithLabelValues(string(r))
	})
	m.panics = newChildren(func(guard string) prometheus.Counter {
		return panics.WithLabelValues(guard)
	})
	m.reg.MustRegister(events, decisions, deadLetters, panics, m.batch, m.gaps, m.gapEvents, m.partitionSet,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// kindLabel is k's name; kinds this version does not know share one label.
func kindLabel(k event.Kind) string {
	if k.Valid() {
		return k.String()
	}
	return "unknown"
}

// decisionLabel is k's name; kinds this version does not know share one
// label.
func decisionLabel(k event.DecisionKind) string {
	if k.Valid() {
		return k.String()
	}
	return "unknown"
}

// Registry returns the registry to serve, and to add collectors to.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Applied counts an applied event.
func (m *Metrics) Applied(k event.Kind) { m.events[k].Inc() }

// Decided counts a published decision.
func (m *Metrics) Decided(k event.DecisionKind, r event.Reason) {
	if r == "" {
		m.plain[k].Inc()
		return
	}
	m.decisions.get(decisionKey{k, r}).Inc()
}

// DeadLettered counts a dead letter.
func (m *Metrics) DeadLettered(r streams.DeadReason) { m.deadLetters.get(r).Inc() }

// Batch records a batch's latency.
func (m *Metrics) Batch(_, _ int, d time.Duration) { m.batch.Observe(d.Seconds()) }

// Gap counts a recovery gap and the sequences in it.
func (m *Metrics) Gap(_ int, from, to uint64) {
	m.gaps.Inc()
	if to >= from {
		m.gapEvents.Add(float64(to - from + 1))
	}
}

// Panicked counts a recovered panic of the guard named guard.
func (m *Metrics) Panicked(guard string) { m.panics.get(guard).Inc() }

// Owned records that this instance took or gave up a partition.
func (m *Metrics) Owned(partition int, owned bool) { m.partitionSet.own(partition, owned) }

// Recovered records that an owned partition consumes new events.
func (m *Metrics) Recovered(partition int) { m.partitionSet.recovered(partition) }

// Checkpointed records a partition's latest checkpoint: written now, or,
// as the partition recovers, the one stored in guard_runs, by whichever
// instance wrote it.
func (m *Metrics) Checkpointed(partition int, at time.Time) {
	m.partitionSet.checkpointed(partition, at)
}

// Inflight records the events an owned partition keeps in flight at most.
func (m *Metrics) Inflight(partition, limit int) { m.partitionSet.inflight(partition, limit) }

// Recovering returns the partitions this instance owns that have not
// recovered yet, in order.
func (m *Metrics) Recovering() []int { return m.partitionSet.recovering() }
