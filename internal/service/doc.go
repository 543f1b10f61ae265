// Package service assembles guard-consumer: an embedded JetStream server
// unless a NATS URL is given, the provisioned streams, and the runner with
// the policy's processor chain. cmd/guard-consumer and cmd/emitter-demo both
// start it.
package service
