// Package event holds the guardstream wire contract, version 1: the events
// agents publish (run start and end, steps, tool calls and results,
// heartbeats), the decisions guard-consumer publishes back (allow, repair,
// advise, reject, defer, stop), and their msgpack codec.
//
// Every value is a msgpack map with short string keys, a "v" version field
// and int64 millisecond timestamps; no extension types are used and unknown
// keys are ignored, so a newer producer can add fields without breaking an
// older consumer. docs/wire.md documents every field for authors of agents in
// other languages; the test vectors in testdata/ prove the codec.
//
// The package is a leaf: it imports no NATS code, so processors can depend on
// it and stay pure.
package event
