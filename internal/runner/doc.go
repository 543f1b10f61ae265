// Package runner is the only part of guard-consumer that touches NATS: it
// consumes events, loads run state, calls the processor chain, publishes
// decisions, persists state and acks.
//
// # Ownership
//
// Any number of instances share the partitions of AGENT_EVENTS. Each
// partition's durable consumer has one priority group with a pinned
// client: every instance pulls every partition it has room for, and the
// server delivers a partition's events to the one pull it pinned. That
// instance owns the partition for a tenure, which ends when the server
// pins another pull, when the instance hands the partition over, or when
// it stops. Instances count each other by NATS service discovery (the
// micro service streams.RunnerService), and one holding more than
// ceil(partitions / instances) unpins the excess for others to take.
// Pinning is not a lock: run state is written with compare-and-set, and a
// tenure that finds its write fenced ends at once
// (docs/decisions/0008-ownership.md).
//
// # The event path
//
// Within a tenure a partition is consumed in stream order, in batches that
// grow with load: one event when idle, up to Config.Batch under pressure.
// Each event goes decode → apply → emit:
//
//  1. decode reads and checks it against the wire contract;
//  2. apply folds it into its run's cached state through the chain;
//  3. emit hands the decisions to a sink: live publishes them
//     asynchronously, each with the deterministic Nats-Msg-Id
//     <tenant>.<run>.<seq>.<index>; replay, used by recovery for events
//     whose effects are stored already, drops them.
//
// Cross-cutting concerns wrap the path: deadLettering sends what decode
// or apply refuses to the dead letters with a typed reason; recoverer
// turns a guard's panic into a SYSTEM_ERROR stop of its run and a dead
// letter; observed reports what the live sink published to the Observer.
//
// A batch is acked (AckAll on its last event) once everything it
// published is stored, with the batches settled in the next AckDelay. Every few seconds the snapshots of the runs changed
// are written to the guard_runs bucket, then a checkpoint naming the
// stream sequence they reflect. A new tenure rebuilds the state from the
// checkpoint by replaying the events after it; events gone from the stream
// are reported as a gap, not waited for.
package runner
