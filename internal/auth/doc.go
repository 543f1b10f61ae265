// Package auth is guardstream's security model on NATS: who may publish
// and subscribe to what, in which account, and how identities get their
// credentials.
//
// # Accounts
//
// Two accounts split the system (Layout). GUARD holds JetStream, its
// streams and buckets, guard-consumer, operators and dashboards. AGENTS
// holds the agents, and sees of GUARD only what GUARD exports: the event
// and output-upload subjects and the agent API as services, the decisions
// as a stream. An agent therefore cannot reach the JetStream API, a
// bucket, a timer or a dead letter at all, and a reply a GUARD responder
// sends to a subject the agent chose lands in AGENTS, never on a GUARD
// subject: NATS lets any requester choose its reply subject, and JetStream
// answers a publish on it, which in one shared account would let an agent
// write acks into guard_runs or GUARD_CONTROL.
//
// # Roles
//
// A Role's Permissions (For) bind an identity to what it may do: agents to
// their own tenant's subjects, dashboards to reading, operators to
// everything but impersonating guard-consumer or an agent. The tenant is
// part of the identity: in operator mode it is the user's name, which the
// account's scoped signing key for agents puts into the permissions
// template ({{name()}}); on the embedded default's open port it is fixed by
// configuration.
//
// # Two ways to run
//
// EmbeddedConfig is the embedded default: accounts in the server's config,
// guard-consumer connecting in process with a key made at start, and
// connections without credentials bound to an agent user. Init, Issue,
// Revoke and Rotate manage an operator-mode deployment: JWTs for the
// operator and the accounts that the server preloads (auth.conf), signing
// keys per role, and user credentials issued offline.
package auth
