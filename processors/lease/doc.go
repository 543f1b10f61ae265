// Package lease stops runs whose agent has gone silent.
//
// A run declares a lease at its start (run_start "lease", in ms, or the
// policy's default); every heartbeat renews it. Each renewal sets a timer
// named "lease" whose generation is the renewing event's sequence. The
// runner turns the timer into a message the NATS server schedules into the
// run's own partition, so the expiry is an event in the stream: it fires
// while guard-consumer is down, it is handled in stream order after every
// heartbeat that came before it, and replay sees it again. When a lease
// timer fires whose generation is still the run's latest renewal, the run is
// stopped with LEASE_EXPIRED and outcome cancelled, which tells whoever runs
// the run's tools to cancel them. A timer of an older generation, overtaken
// by a heartbeat, changes nothing.
//
// Like every processor, the detector is a pure function of its state and the
// event: it never reads the clock.
package lease
