// Package integration holds end-to-end tests of guardstream: agents using
// the client package, guard-consumer, and a real NATS server, embedded in
// the test process. Nothing is mocked.
package integration
