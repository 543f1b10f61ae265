// Package bench measures guard-consumer against the limits of the server
// it runs on, in one run. cmd/guard-bench runs it.
//
// What the guard is measured against, each a pipeline on its own
// connection and its own streams, partitioned as AGENT_EVENTS is:
//
//   - The baseline (baseline.go): the simplest consumer with the guard's
//     delivery guarantees — one consumer per partition answering in
//     stream order, each answer published with a deterministic
//     Nats-Msg-Id, an event acked (AckAll) only once its answer is stored
//     — tuned hard: work in flight bounded by events (MaxAckPending),
//     answers published without futures, acknowledgements matched by
//     reply subject and not decoded, acks coalesced as the runner's are
//     (runner.AckDelay).
//   - The old baseline (lockstep.go): the baseline before issue 14, held
//     to the runner's limits of the time (four batches in flight). Only
//     its throughput is measured, to show what the new one gains.
//   - The floors: core NATS request/reply (a responder echoing each
//     request), and a bare JetStream verdict loop — events into a stream,
//     a pull consumer per partition answering each with a core publish
//     into an answer stream, no message id, no acks — with 1 partition and
//     with the guard's.
//
// Every pipeline's answer echoes the start of its event, where a latency
// window puts a tag; the guard's answers are its verdicts. The guard runs
// the default policy, or the one Config.Policy names (a file or a preset,
// as guard-consumer's -policy takes it), so that an operator can measure
// what their own policy costs; the report names it.
//
// The phases:
//
//   - Throughput: in this process, which generates no load meanwhile,
//     rounds of drains of the same preloaded events on fresh runs by the
//     old baseline, the baseline and the guard, in alternating order; the median ratios are reported, with the messages stored and
//     the CPU time the process and the server spent per event — on a
//     shared machine a steadier cost than the rate.
//   - Latency: at each offered load and at the guard's saturation, rounds
//     of windows of the same events offered open-loop to every floor, the
//     baseline and the guard (on fresh runs; published through a sender
//     that counts acknowledgements without decoding them), the guard's
//     window in the middle and the others' order rotating. Each pipeline
//     runs in a child process of its own (process.go), as guard-consumer
//     does in production, so that the load generator's garbage
//     collections and the other pipelines' do not fall into its windows.
//     Each comparison's guard p99 to its p99, pair by pair, is reported as
//     the median and the range, and as the ratio of the pooled samples,
//     where a stall that falls in one window of several still shows; so
//     is the baseline's p99 to the N-partition loop's, what the guard's
//     delivery guarantees cost without its guards. A window waits until its target
//     has handled everything before the next starts, and measures the
//     CPU time its target's process and the server spent per event
//     meanwhile: what an answer costs the two cores all of them share.
//   - Scaling: for each number of active runs, a fresh runner starts them
//     all (their starts preloaded), its consumers are paused while events
//     touching every run alike are preloaded, and their drain is timed;
//     the first number is measured again at the end, and every throughput
//     is reported as a ratio to the mean of those two. The runner's heap
//     per run and the snapshots' mean size are measured on the way.
//   - Partition failures: the runner's 'partition failed' warnings, from
//     the logger guard-bench gives it, counted per phase.
//
// The server is this binary too, as a child process (server.go): its CPU
// time is read per drain, and on request (Config.ServerProfile) it
// profiles itself over each drain.
//
// Every phase is bounded in events and time. Numbers from a shared machine
// are noisy: compare the ratios, measured in the same run, not absolute
// rates across runs.
package bench
