// Package eventlog reads and writes wire events as JSON lines: one event
// per line, the JSON form of its msgpack map (the form of the test
// vectors' "json" and of the schemas in event/testdata/schema). It is how
// guardstream exports the runs in AGENT_EVENTS for offline evaluation,
// and how guard-eval reads them back.
//
// A line is decoded as the wire decodes an event: the JSON value is
// turned into msgpack and read by event.DecodeEvent, so keys, types and
// unknown keys mean what they mean on the wire, and a float where an
// integer is due is an error, as it is in msgpack.
package eventlog
