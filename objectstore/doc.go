// Package objectstore keeps tools' full outputs in JetStream and serves
// bounded views of them: full outputs in, bounded views out. The model only
// ever sees a view (package objectstore/view, which is pure and imports no
// NATS, so processors can use it); agents and operators fetch the full
// output by its digest, which the call's output decision names.
//
// # Names
//
// Everything lives in one stream, GUARD_OUTPUTS (Stream), whose
// configuration is data (Config.StreamConfig). An output is named
// sha256:<hex>, event.Digest of its bytes, within the tenant that stored
// it: its parts are on guard.out.<tenant>.<hex>.<part>. The tenant is a
// subject token so that the server's subject permissions isolate tenants'
// outputs as they isolate their events: an agent may publish on its own
// tenant's output subjects (Filter) and read nothing here directly; it
// reads pages through guard-consumer's agent API (package agentapi).
//
// # Parts
//
// An output is stored in parts of Config.ChunkSize bytes, one message per
// subject (the stream keeps the last message of each), written from the
// last part to the first; the first part carries the size and the part
// count in headers (HeaderSize, HeaderParts). A reader that finds the
// first part therefore finds the others. Every part but the last is as
// long as the first, at least MinChunkSize bytes, so that an output takes
// a bounded number of reads whoever wrote it; Get checks that as it reads,
// then the digest and size of what it read, and refuses what does not
// match, so a part forged by another writer of the same tenant fails the
// read instead of passing for the output.
//
// # Content addressing
//
// Put names an output by its digest and stores it once per tenant: if the
// stream holds the tenant's output of that name and size already, Put
// stores nothing, so an output that a tenant's agents or runs produce
// many times takes space once. Two tenants that produce the same output
// each store it.
//
// # Retention
//
// Outputs expire Config.MaxAge after they were written. Since Put does not
// rewrite an output it already holds, an output produced again late in its
// life would expire soon after; so Put stores an output again once it is
// older than half of MaxAge. Every output is thus kept at least MaxAge/2
// after its last Put.
//
// The stream is also capped (Config.MaxBytes). When it is full, the
// oldest parts go, whichever tenant stored them, so that one tenant's
// uploads cannot make every other tenant's fail. An output that lost a
// part reads as not found; Put checks its last part, the first to go, and
// stores it again.
//
// # Pipelined writes
//
// Put looks the output up before it writes, which costs a round trip.
// Messages instead returns the messages that store an output, for a caller
// that publishes them itself, with the rest of its batch; Upload publishes
// them one by one, which is what an agent does.
//
// # Concurrency
//
// A Store is safe for concurrent use. Two concurrent writes of the same
// output write the same parts. A Get that overlaps a rewrite reads the
// same bytes.
package objectstore
