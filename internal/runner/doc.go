// Package runner is the only part of guard-consumer that touches NATS: it
// consumes events, loads run state, calls the processor chain, publishes
// decisions, persists state and acks.
//
// Each partition of AGENT_EVENTS is consumed by its own goroutine in stream
// order, in batches that grow with load: one event when idle, up to
// Config.Batch under pressure. For each batch the runner
//
//  1. decodes and validates every event, sending what fails to the dead
//     letters with a typed reason;
//  2. applies the rest to their run's cached state and publishes the
//     decisions asynchronously, each with the deterministic Nats-Msg-Id
//     <tenant>.<run>.<seq>.<index>;
//  3. waits for every publish to be stored, then writes each changed run's
//     snapshot to the guard_runs bucket with compare-and-set on its revision;
//  4. acks the batch's last event, which acks the batch (AckAll).
//
// A run's snapshot records the stream sequence of the last event applied to
// it, so a redelivered event that was already applied has no effect. If a
// step fails, the partition forgets its cache, stops pulling, and resumes
// once the server redelivers the unacked events, in order; decisions that
// were already stored are dropped by their Nats-Msg-Id.
package runner
