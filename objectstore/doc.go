// Package objectstore keeps tools' full outputs in the JetStream object
// store and serves bounded views of them: full outputs in, bounded views
// out. The model only ever sees a view (package objectstore/view, which is
// pure and imports no NATS, so processors can use it); operators fetch the
// full output by its digest, which the call's output decision names.
//
// # Names
//
// Everything lives in one bucket, guard_outputs (Bucket), whose
// configuration is data (Config.BucketConfig). An output is named
// sha256:<hex>, event.Digest of its bytes.
//
// # Content addressing
//
// Put names an output by its digest and stores it once: if the bucket
// already holds an object of that name and content, Put stores nothing, so
// an output that many agents or runs produce takes space once. Get checks
// the digest (and size) of what it read, and refuses what does not match.
//
// # Retention
//
// Objects expire Config.MaxAge after they were written. Since Put does not
// rewrite an output it already holds, an output produced again late in its
// life would expire soon after; so Put stores an output again once it is
// older than half of MaxAge. Every output is thus kept at least MaxAge/2
// after its last Put.
//
// # Pipelined writes
//
// Put looks the output up before it writes, which costs round trips.
// Messages instead returns the two messages that store a small output (one
// chunk and its metadata) for a caller that publishes them itself, with the
// rest of its batch: the chunk's subject is derived from the digest and both
// messages roll up their subjects, so writing an output again replaces it
// with the same and needs no lookup.
//
// # Concurrency
//
// A Store is safe for concurrent use. Two concurrent Puts of the same new
// output may both store it; the object store keeps the last, and the chunks
// of the other stay behind until they expire. A Get that overlaps the
// replacement of the object it reads may fail with ErrDigestMismatch or a
// NATS error; reading again succeeds.
package objectstore
