// Package embedded starts a NATS server with JetStream inside the current
// process: the default for guard-consumer and emitter-demo, so that one
// command runs the whole system with no external service.
package embedded
