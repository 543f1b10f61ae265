package streams

// DeadReason says why an event went to the dead letters. The set is closed;
// each reason is the last token of the dead letter's subject.
type DeadReason string

// Dead-letter reasons.
const (
	DeadUndecodable DeadReason = "undecodable" // not a msgpack map
	DeadWrongType   DeadReason = "wrong_type"  // a field has the wrong type
	DeadVersion     DeadReason = "version"     // unsupported contract version
	DeadInvalid     DeadReason = "invalid"     // a field is missing or invalid
	DeadOversize    DeadReason = "oversize"    // larger than the event size limit
	DeadSubject     DeadReason = "subject"     // the subject is malformed or disagrees with the payload
	DeadDuplicate   DeadReason = "duplicate"   // a per-run sequence at or below one already applied
	DeadPanic       DeadReason = "panic"       // a guard panicked on the event; its run was stopped
	DeadGap         DeadReason = "gap"         // not an event: a range of a partition's events no longer in the stream
	// DeadRateLimited is not one event but the events of one run, in one
	// batch, that were over its or its tenant's admission limits: their
	// stream sequences are in HeaderSequences; they stay in AGENT_EVENTS.
	DeadRateLimited DeadReason = "rate_limited"
)
