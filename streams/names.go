package streams

// Names of the streams, buckets and consumers.
const (
	EventStream      = "AGENT_EVENTS"
	TimerStream      = "GUARD_TIMERS"
	ControlStream    = "GUARD_CONTROL"
	DeadLetterStream = "GUARD_DLQ"
	RunsBucket       = "guard_runs"

	// ConsumerPrefix starts the name of each partition's durable consumer:
	// guard-p0, guard-p1, ...
	ConsumerPrefix = "guard-p"
	// PriorityGroup is the one priority group of each partition's
	// consumer; the instance pinned in it owns the partition.
	PriorityGroup = "owner"
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
	// HeaderProcessor names the guard that panicked on a dead letter of
	// reason panic.
	HeaderProcessor = "Guard-Processor"
	// HeaderPartition, HeaderFirst and HeaderLast describe a dead letter
	// of reason gap: the partition, and the first and last AGENT_EVENTS
	// sequence of the range whose events were gone.
	HeaderPartition = "Guard-Partition"
	HeaderFirst     = "Guard-First"
	HeaderLast      = "Guard-Last"
	// HeaderSequences lists, on a dead letter of reason rate_limited, the
	// AGENT_EVENTS sequences of the events refused, as comma-separated
	// sequences and ranges: "12,15-19".
	HeaderSequences = "Guard-Sequences"
	// HeaderLimit names, on a dead letter of reason rate_limited, the
	// limit the events were over: run or tenant.
	HeaderLimit = "Guard-Limit"
)

// HeaderPinID is the header the server sets on what it delivers from a
// consumer with a pinned priority group: the id of the pin, which changes
// whenever the server pins the group to another pull.
const HeaderPinID = "Nats-Pin-Id"

// RunnerService is the NATS micro service every guard-consumer runner
// registers: pinging it counts the instances sharing the partitions.
const RunnerService = "guard-runner"

// DirectGetSubject is the subject of stream's direct get API, which any
// current replica of a stream with AllowDirect answers, in batches.
func DirectGetSubject(stream string) string { return "$JS.API.DIRECT.GET." + stream }

// MsgGetSubject is the subject of stream's message get API, which only the
// stream's leader answers: what it says is never behind.
func MsgGetSubject(stream string) string { return "$JS.API.STREAM.MSG.GET." + stream }
