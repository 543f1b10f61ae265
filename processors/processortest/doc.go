// Package processortest is the conformance kit every processor passes, and
// the helpers guard tests share: a builder for event histories and golden
// event→decision logs.
//
// Run checks a processor the way guard-consumer runs it, inside a
// processors.Chain: determinism (the same history twice gives identical
// bytes), idempotence under duplicate delivery (an event delivered again,
// at once or later, changes nothing), state snapshots that round-trip
// through msgpack without changing what happens next, and no panic on odd
// input.
package processortest
