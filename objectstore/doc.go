// Package objectstore keeps tools' full outputs in the JetStream object
// store and serves bounded views of them: full outputs in, bounded views
// out. The model only ever sees a view (package objectstore/view, which is
// pure and imports no NATS, so processors can use it); operators fetch the
// full output by its digest or by the run and call that produced it.
//
// # Names
//
// Everything lives in one bucket, guard_outputs (Bucket), whose
// configuration is data (Config.BucketConfig). Objects are named:
//
//	sha256:<hex>                     a full output, named by event.Digest of its bytes
//	runs/<tenant>/<run>/<call>       a link to the output the call produced
//
// Ids in link names are percent-escaped ("%" as %25, "/" as %2F), so the
// name of every (tenant, run, call) is distinct even though ids may contain
// "/"; ids that event.CheckID refuses are refused.
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
// Objects and links expire Config.MaxAge after they were written. Since Put
// does not rewrite an output it already holds, an output produced again
// late in its life would expire soon after; so Put stores an output again
// once it is older than half of MaxAge. Every output is thus kept at least
// MaxAge/2 after its last Put, and a link at least MaxAge after it was made;
// a link whose output has expired resolves to ErrNotFound.
//
// # Concurrency
//
// A Store is safe for concurrent use. Two concurrent Puts of the same new
// output may both store it; the object store keeps the last, and the chunks
// of the other stay behind until they expire. A Get that overlaps the
// replacement of the object it reads may fail with ErrDigestMismatch or a
// NATS error; reading again succeeds.
package objectstore
