package event

// Version is the version of the wire contract this package speaks.
const Version = 1

// Event is one thing an agent reports about a run. The envelope fields (V to
// TS) are set on every event; the rest depend on Kind and are left zero, and
// omitted on the wire, when they do not apply.
type Event struct {
	V      int    `msgpack:"v"`   // contract version, 1
	Kind   Kind   `msgpack:"k"`   // what the event reports
	Tenant string `msgpack:"tn"`  // tenant id, a subject token
	Run    string `msgpack:"run"` // run id, a subject token
	Seq    int64  `msgpack:"seq"` // per-run sequence, strictly increasing from 1
	TS     int64  `msgpack:"ts"`  // agent clock, milliseconds since the Unix epoch

	// Run start.
	Agent string `msgpack:"agent,omitempty"` // agent class; selects policy

	// Run end.
	Status Status `msgpack:"status,omitempty"` // the outcome the agent claims

	// Step.
	Step int64 `msgpack:"step,omitempty"` // the step's number within the run

	// Tool call and result.
	Call string `msgpack:"call,omitempty"` // call id, unique within the run, a subject token
	Tool string `msgpack:"tool,omitempty"` // tool name
	Args string `msgpack:"args,omitempty"` // call arguments as JSON text, as the model produced them
	Path string `msgpack:"path,omitempty"` // the path the call acts on, if any

	// Tool result.
	Err bool   `msgpack:"err,omitempty"` // the tool failed
	Out string `msgpack:"out,omitempty"` // the tool's output as text
}

// Status is the outcome of a run.
type Status string

// Run outcomes.
const (
	StatusCompleted Status = "completed"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
)

// Valid reports whether s is one of the defined outcomes.
func (s Status) Valid() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}
