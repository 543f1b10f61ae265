// Package metrics counts what guard-consumer does, for Prometheus.
//
// Metrics is the runner's Observer: events by kind, decisions by kind and
// reason, dead letters by reason, batch latency, the partitions this
// instance owns and whether each has recovered, checkpoint age, recovery
// gaps and recovered panics. Consumers reads each partition consumer's
// backlog from the server when Prometheus scrapes. Every label holds a
// value from a closed set (a kind, a reason, a guard's name, a partition
// number), never a tenant or run id, so the series do not grow with the
// fleet.
//
// The Observer methods run on the runner's per-event path: the label
// children are resolved ahead (arrays indexed by kind) or cached on first
// sight, so an observed event allocates nothing.
package metrics
