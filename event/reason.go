package event

// Reason is the typed cause of a reject or a stop. The set is closed and the
// strings are stable; docs/wire.md lists what each one means.
type Reason string

// Reasons.
const (
	// ReasonLoopDetected: the same call (tool, canonical arguments and path)
	// repeated past the policy's limit.
	ReasonLoopDetected Reason = "LOOP_DETECTED"
	// ReasonTooManyMistakes: too many tool rounds in a row ended in errors.
	ReasonTooManyMistakes Reason = "TOO_MANY_MISTAKES"
	// ReasonSystemError: the agent ignored an override constraint, or its
	// output stayed invalid after the allowed repair attempts.
	ReasonSystemError Reason = "SYSTEM_ERROR"
	// ReasonInvalidEvent: a call was refused because the event carrying it
	// broke the wire contract; it went to the dead letters, and the message
	// says what was wrong.
	ReasonInvalidEvent Reason = "INVALID_EVENT"
)

// Steer is a typed constraint the agent must honour; guard-consumer never
// rewrites prompts with free text. Sig and Tool say what the constraint is
// about.
type Steer struct {
	Kind SteerKind `msgpack:"c"`              // the constraint
	Sig  string    `msgpack:"sig,omitempty"`  // call signature (16 hex digits) it is about
	Tool string    `msgpack:"tool,omitempty"` // tool it is about
}

// SteerKind names a steer constraint. The set is closed; the strings are
// stable.
type SteerKind string

// Steer constraints.
const (
	// SteerAvoidRepeat: do not repeat the call with signature Sig; change the
	// arguments or the approach.
	SteerAvoidRepeat SteerKind = "avoid_repeat"
	// SteerVaryApproach: Tool has been called many times in a row with
	// different arguments; step back and consider another tool or delegate.
	SteerVaryApproach SteerKind = "vary_approach"
	// SteerReadErrors: several rounds in a row failed; re-read the error
	// messages before acting.
	SteerReadErrors SteerKind = "read_errors"
	// SteerBreakCycle: the agent alternates between two calls; break the
	// cycle.
	SteerBreakCycle SteerKind = "break_cycle"
	// SteerOverride: the loop limit was reached; the call with signature Sig
	// was refused and repeating it once more stops the run.
	SteerOverride SteerKind = "override"
)
