// Package agentapi is guard-consumer's request/reply API for agents: its
// subjects, requests and replies, and the Go calls that make them.
//
// Endpoints (requests and replies are JSON; errors come as the micro
// service headers Nats-Service-Error-Code and Nats-Service-Error):
//
//	guard.api.<tenant>.page       PageRequest      → View
//	guard.api.<tenant>.decisions  DecisionsRequest → DecisionsReply
//
// guard-consumer serves requests concurrently, taking the tenants waiting
// in turn; when too many of a tenant's requests wait it answers 429, when
// too many of all tenants' do 503 (ErrBusy): try again later.
//
// The tenant is the subject's third token. The server's permissions let an
// agent publish only on its own tenant's subjects (docs/security.md), so
// guard-consumer trusts the tenant of the subject and takes none from the
// body: an agent reads only its own tenant's outputs and decisions.
//
// Replies are JSON so that none can pass for a decision: a reply sent to a
// subject the requester chose (any NATS requester chooses its reply
// subject) is never taken for a verdict by another agent that listens
// there.
package agentapi
