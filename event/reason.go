package event

import "slices"

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
	// ReasonLimitExceeded: a budget or limit was exceeded; Rule names it.
	ReasonLimitExceeded Reason = "LIMIT_EXCEEDED"
	// ReasonLeaseExpired: no heartbeat came within the run's lease; the run
	// is cancelled.
	ReasonLeaseExpired Reason = "LEASE_EXPIRED"
	// ReasonUnknownTool: the call names a tool the run did not declare;
	// Near lists the closest declared ones.
	ReasonUnknownTool Reason = "UNKNOWN_TOOL"
	// ReasonInvalidArgs: the call's arguments break the tool's schema and
	// could not be repaired; Diags say where.
	ReasonInvalidArgs Reason = "INVALID_ARGS"
	// ReasonInvalidOutput: a structured document breaks its schema and
	// could not be repaired; Diags say where.
	ReasonInvalidOutput Reason = "INVALID_OUTPUT"
	// ReasonPolicyViolation: the call breaks the run's policy pattern; Rule
	// names the rule.
	ReasonPolicyViolation Reason = "POLICY_VIOLATION"
	// ReasonHallucinatedSuccess: the run claimed success while its last
	// verification failed or a promised output is missing; its outcome is
	// overridden to failed.
	ReasonHallucinatedSuccess Reason = "HALLUCINATED_SUCCESS"
	// ReasonPlanningLoop: the run kept planning without applying a change.
	ReasonPlanningLoop Reason = "PLANNING_LOOP"
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
	// SteerVaryApproach: Tool has failed several times in a row with
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
	// SteerNarrowScope: Tool reached its fan-out budget; narrow the search
	// or delegate. Further calls of it are refused.
	SteerNarrowScope SteerKind = "narrow_scope"
	// SteerSlowDown: the run sent events faster than its admission limit
	// allows; those over it were dropped (dead letters of reason
	// rate_limited). Send fewer, and resend nothing: a call whose verdict
	// did not come is refused.
	SteerSlowDown SteerKind = "slow_down"
	// SteerSoftLimit: a soft limit was exceeded; wrap up.
	SteerSoftLimit SteerKind = "soft_limit"
	// SteerFixArgs: the call's arguments were invalid; correct them as the
	// decision's Diags say.
	SteerFixArgs SteerKind = "fix_args"
	// SteerZeroResults: a search found nothing; list the directory, try
	// other names, or broaden the filter.
	SteerZeroResults SteerKind = "zero_results"
	// SteerPathEscape: the call reaches outside the workspace.
	SteerPathEscape SteerKind = "path_escape"
	// SteerTestEdit: the call edits a test file; make sure the test, not
	// the code, is what needs to change.
	SteerTestEdit SteerKind = "test_edit"
	// SteerCommitPlan: the run keeps planning without changing anything;
	// commit to a plan and act.
	SteerCommitPlan SteerKind = "commit_plan"
	// SteerRepeatMessage: the assistant said the same thing several times
	// with no tool result between; act on it or answer differently.
	SteerRepeatMessage SteerKind = "repeat_message"
	// SteerCompactionLoop: the context was compacted several times in a
	// row without progress; stop and report, or shed context differently.
	SteerCompactionLoop SteerKind = "compaction_loop"
)

// reasons and steerKinds list the closed sets, for Valid.
var (
	reasons = []Reason{
		ReasonLoopDetected, ReasonTooManyMistakes, ReasonSystemError, ReasonInvalidEvent, ReasonLimitExceeded,
		ReasonLeaseExpired, ReasonUnknownTool, ReasonInvalidArgs, ReasonInvalidOutput, ReasonPolicyViolation,
		ReasonHallucinatedSuccess, ReasonPlanningLoop,
	}
	steerKinds = []SteerKind{
		SteerAvoidRepeat, SteerVaryApproach, SteerReadErrors, SteerBreakCycle, SteerOverride, SteerNarrowScope,
		SteerSoftLimit, SteerFixArgs, SteerZeroResults, SteerPathEscape, SteerTestEdit, SteerCommitPlan,
		SteerRepeatMessage, SteerCompactionLoop, SteerSlowDown,
	}
)

// Valid reports whether r is a reason of this version of the contract.
func (r Reason) Valid() bool { return slices.Contains(reasons, r) }

// Valid reports whether k is a steer constraint of this version of the
// contract.
func (k SteerKind) Valid() bool { return slices.Contains(steerKinds, k) }
