// Package bench measures guard-consumer against a bare JetStream pipeline
// on the same server, in one run: throughput of each (events/s, and their
// ratio), verdict latency at fixed offered loads and at saturation, and the
// memory and state bytes an active run costs. cmd/guard-bench runs it.
//
// Throughput is measured by preloading a stream and timing the consumers'
// drain, so publishers do not compete with consumers for the CPU. The
// baseline consumes each event, publishes one message with a Nats-Msg-Id,
// and acks, with the runner's batching and pipelining but no guard logic.
// Latency is measured open-loop: events are offered at a fixed rate, and
// for each tool call the time from its publish to the agent receiving its
// verdict is recorded.
//
// Every phase is bounded in events and time. Numbers from a shared machine
// are noisy: compare the ratio, measured in the same run, not absolute
// rates across runs.
package bench
