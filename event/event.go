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
	Seq    int64  `msgpack:"seq"` // per-run sequence, strictly increasing from 1; 0 on timer events
	TS     int64  `msgpack:"ts"`  // agent clock, milliseconds since the Unix epoch

	// Run start.
	Agent     string   `msgpack:"agent,omitempty"`   // agent class; selects policy
	Lease     int64    `msgpack:"lease,omitempty"`   // lease TTL in ms; heartbeats must come sooner; 0: the policy's default
	Workspace string   `msgpack:"ws,omitempty"`      // absolute workspace root; paths are checked relative to it
	Pattern   string   `msgpack:"pattern,omitempty"` // policy pattern the run acts under
	Tools     []Schema `msgpack:"tools,omitempty"`   // the run's tools, each with a JSON Schema for its arguments
	Docs      []Schema `msgpack:"docs,omitempty"`    // schemas of the structured documents the run will produce
	Outputs   []string `msgpack:"outputs,omitempty"` // paths the run promises to produce

	// Run end.
	Status Status `msgpack:"status,omitempty"` // the outcome the agent claims

	// Step.
	Step      int64  `msgpack:"step,omitempty"`   // the step's number within the run
	Turn      int64  `msgpack:"turn,omitempty"`   // the user turn the step belongs to
	TokensIn  int64  `msgpack:"tin,omitempty"`    // prompt tokens this step used
	TokensOut int64  `msgpack:"tout,omitempty"`   // completion tokens this step used
	Cost      int64  `msgpack:"cost,omitempty"`   // cost of this step in micro-units of currency (1e-6 USD)
	Context   int64  `msgpack:"ctx,omitempty"`    // tokens in the context window after this step
	Window    int64  `msgpack:"win,omitempty"`    // size of the context window in tokens
	Planning  bool   `msgpack:"plan,omitempty"`   // the step planned rather than acted
	Doc       string `msgpack:"doc,omitempty"`    // a structured document the step produced, as JSON text
	DocSchema string `msgpack:"schema,omitempty"` // name of the declared schema Doc must satisfy
	TextDig   string `msgpack:"tdig,omitempty"`   // a digest of the assistant's text in this step, compared for equality only

	// Tool call and result.
	Call string `msgpack:"call,omitempty"` // call id, unique within the run, a subject token
	Tool string `msgpack:"tool,omitempty"` // tool name
	Args string `msgpack:"args,omitempty"` // call arguments as JSON text, as the model produced them
	Path string `msgpack:"path,omitempty"` // the path the call acts on, if any

	// Tool result.
	Err     bool       `msgpack:"err,omitempty"`    // the tool failed
	Out     string     `msgpack:"out,omitempty"`    // the tool's output as text, when sent inline
	Ref     *OutputRef `msgpack:"ref,omitempty"`    // the tool's output in the object store, when too large to send inline
	Exit    int64      `msgpack:"exit,omitempty"`   // the process exit code, for tools that run one
	Verify  bool       `msgpack:"verify,omitempty"` // the result verifies the work (tests, build)
	Changes *Changes   `msgpack:"chg,omitempty"`    // what an editing call changed
	// Abandoned says the agent gave up on the call and never ran it, for
	// example because no verdict came in time. The result then carries no
	// outcome (Err, Out, Ref, Exit, Verify and Changes are zero), and the
	// guards count it neither as a failure nor as a success.
	Abandoned bool `msgpack:"abandoned,omitempty"`

	// Round.
	Calls []string `msgpack:"calls,omitempty"` // ids of the calls of the round
	Wait  int64    `msgpack:"wait,omitempty"`  // ms to wait for all results before settling without them

	// Timer.
	Timer string `msgpack:"timer,omitempty"` // the timer's name, such as "lease"
	Gen   int64  `msgpack:"gen,omitempty"`   // the seq of the event that set the timer

	// Resume.
	By  string `msgpack:"by,omitempty"`  // who resumes the run: a user or operator id
	Why string `msgpack:"why,omitempty"` // why, in a sentence

	// Auth is who the transport vouches for, set by the runner from what
	// it trusts (never read from the payload): guard-consumer checks a
	// resume against it when it is set, and against By otherwise.
	Auth string `msgpack:"-"`
}

// Schema names a JSON Schema (draft 2020-12) given as JSON text.
type Schema struct {
	Name   string `msgpack:"name"`
	Schema string `msgpack:"schema"`
	// Kind, on a declared tool, says what the tool does, when the agent
	// knows it: the guards that read commands and paths out of calls go by
	// it before the tool's name and schema. Left out, they go by those
	// alone. A kind this version does not know is read as none, so later
	// versions can add kinds. On a document schema it means nothing and is
	// ignored.
	Kind ToolKind `msgpack:"kind,omitempty"`
}

// ToolKind is what a declared tool does.
type ToolKind string

// Tool kinds.
const (
	// ToolShell runs the shell command in its arguments (under a key of
	// the policy's tools.shell_keys: command, cmd, script).
	ToolShell ToolKind = "shell"
	// ToolRead reads, lists or searches, and changes nothing: not a shell,
	// whatever its schema looks like.
	ToolRead ToolKind = "read"
	// ToolEdit creates, changes, moves or deletes the files its arguments
	// name: a write tool, as the policy's tools.write_tools are.
	ToolEdit ToolKind = "edit"
)

// OutputRef locates a tool's full output in the GUARD_OUTPUTS stream,
// where it is named by its digest within its tenant.
type OutputRef struct {
	Digest string `msgpack:"dig"`  // "sha256:" and the lower-case hex SHA-256 of the output
	Size   int64  `msgpack:"size"` // bytes
}

// Changes is what an editing call changed.
type Changes struct {
	Files int64    `msgpack:"files,omitempty"`
	Lines int64    `msgpack:"lines,omitempty"`
	Hunks int64    `msgpack:"hunks,omitempty"`
	Paths []string `msgpack:"paths,omitempty"`
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
