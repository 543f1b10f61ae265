// Package streams defines guardstream's JetStream assets as data: stream,
// consumer and key-value configurations, and the subjects they hold.
// Provision creates them idempotently.
//
// Subjects (tokens in <> are ids, checked by event.CheckID):
//
//	agent.<tenant>.<run>.<kind>          what agents publish; kind is run, step, call, result or hb
//	agent.<p>.<tenant>.<run>.<kind>      how AGENT_EVENTS stores it: a subject transform adds
//	                                     the partition <p> = hash(tenant, run) mod Partitions
//	guard.timer.<tenant>.<run>.<name>    a guard timer: a message GUARD_TIMERS holds and the
//	                                     server publishes to guard.fired.<tenant>.<run> when due
//	guard.fired.<tenant>.<run>           fired timers, which AGENT_EVENTS sources into the run's
//	                                     partition as agent.<p>.<tenant>.<run>.timer
//	guard.ctl.<tenant>.<run>.<kind>      decisions, in GUARD_CONTROL; kind is verdict, advice or stop
//	guard.dlq.<reason>                   dead letters, in GUARD_DLQ; the original bytes with headers
//	$KV.guard_runs.<tenant>.<run>        run state snapshots, in the guard_runs bucket
//	$KV.guard_runs._guard.checkpoint.p<p> partition <p>'s checkpoint, in the same bucket
//
// All events of a run share a partition, and each partition is consumed in
// stream order by one durable pull consumer, guard-p<p>: this is what keeps
// per-run order while runs spread over consumers.
package streams
