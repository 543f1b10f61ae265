// Package natstest starts real NATS servers for tests, in the manner of
// nats-server's own test helpers: port -1, a t.TempDir store, and polling
// with a deadline instead of sleeping.
package natstest
