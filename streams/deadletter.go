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
)
