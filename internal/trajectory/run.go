package trajectory

// Run is one recorded agent run: one user task, from the first LLM step
// to the claimed outcome.
type Run struct {
	// Run identifies the run, such as "mini-gemini3pro/astropy__astropy-12907".
	Run string `json:"run"`
	// Source says where the run was recorded from.
	Source string `json:"source,omitempty"`
	// Agent and Model name the agent harness and its model.
	Agent string `json:"agent,omitempty"`
	Model string `json:"model,omitempty"`
	// Instance is the task the run worked on.
	Instance string `json:"instance,omitempty"`
	// Label is the run's real outcome, judged outside the run:
	// "resolved" or "unresolved" for the SWE-bench runs.
	Label string `json:"label,omitempty"`
	// ExitStatus is how the harness ended the run, such as "Submitted".
	ExitStatus string `json:"exit_status,omitempty"`
	// Claimed is the outcome the agent claimed: "completed" or "failed".
	Claimed string `json:"claimed"`
	// Workspace is the agent's workspace root, an absolute path.
	Workspace string `json:"ws,omitempty"`
	// CostUSD is the run's total cost in US dollars, as recorded.
	CostUSD float64 `json:"cost_usd,omitempty"`
	// Tools are the run's tools with the JSON Schema of their arguments.
	Tools []Tool `json:"tools"`
	// Steps are the LLM steps, in order.
	Steps []Step `json:"steps"`
}

// Tool is a tool the run's agent could call.
type Tool struct {
	Name   string `json:"name"`
	Schema string `json:"schema,omitempty"` // JSON Schema text
	// Kind is what the tool does, if the recording says: shell, read or
	// edit (event.ToolKind).
	Kind string `json:"kind,omitempty"`
}

// Step kinds.
const (
	KindAct         = "act"          // the reply held an action
	KindFormatError = "format_error" // the reply held no valid action
)

// Step is one LLM call of the agent loop and the tool calls it made.
type Step struct {
	I         int64  `json:"i"`
	Kind      string `json:"kind,omitempty"`
	TokensIn  int64  `json:"tin,omitempty"`
	TokensOut int64  `json:"tout,omitempty"`
	Cost      int64  `json:"cost,omitempty"` // micro-USD
	Context   int64  `json:"ctx,omitempty"`  // tokens in context after the step
	Window    int64  `json:"win,omitempty"`  // context window in tokens
	Calls     []Call `json:"calls"`
}

// Call is one tool call and its result.
type Call struct {
	ID     string  `json:"id"`
	Tool   string  `json:"tool"`
	Args   string  `json:"args"` // JSON text, as the model produced it
	Path   string  `json:"path,omitempty"`
	Result *Result `json:"result"` // nil: the call never returned
}

// Result is what a call returned.
type Result struct {
	Err       bool     `json:"err"`
	Exit      int64    `json:"exit"`
	Out       string   `json:"out"` // at most 2 KiB: head and tail of the output
	OutLen    int64    `json:"out_len,omitempty"`
	OutSHA256 string   `json:"out_sha256,omitempty"`
	Truncated bool     `json:"truncated,omitempty"`
	Verify    bool     `json:"verify,omitempty"` // the command ran a test runner
	Why       string   `json:"why,omitempty"`    // "exit code", "timeout", "submission" or ""
	Changes   *Changes `json:"chg,omitempty"`
}

// Changes is what an editing call reported it changed.
type Changes struct {
	Files int64    `json:"files,omitempty"`
	Lines int64    `json:"lines,omitempty"`
	Hunks int64    `json:"hunks,omitempty"`
	Paths []string `json:"paths,omitempty"`
}

// Calls returns the number of calls of the run.
func (r *Run) Calls() int {
	n := 0
	for i := range r.Steps {
		n += len(r.Steps[i].Calls)
	}
	return n
}
