package streams

// Names of the streams, buckets and consumers.
const (
	EventStream      = "AGENT_EVENTS"
	ControlStream    = "GUARD_CONTROL"
	DeadLetterStream = "GUARD_DLQ"
	RunsBucket       = "guard_runs"

	// ConsumerPrefix starts the name of each partition's durable consumer:
	// guard-p0, guard-p1, ...
	ConsumerPrefix = "guard-p"
)

// Headers guard-consumer sets on what it publishes.
const (
	// HeaderReason is the dead-letter reason, as in the subject.
	HeaderReason = "Guard-Reason"
	// HeaderError is the error that sent the event to the dead letters.
	HeaderError = "Guard-Error"
	// HeaderSubject is the stored subject of the dead-lettered event.
	HeaderSubject = "Guard-Subject"
	// HeaderSequence is the AGENT_EVENTS sequence of the dead-lettered event.
	HeaderSequence = "Guard-Sequence"
)
