package loop

import (
	"errors"
	"fmt"
	"github.com/guardstream/guardstream/internal/workspace"
	"maps"
	"slices"

	"github.com/guardstream/guardstream/event"
)

// Action is what a ladder step with do: action does: the loop policy
// action of the aos design.
type Action string

// Actions.
const (
	// ActionFail stops the run with LOOP_DETECTED.
	ActionFail Action = "fail"
	// ActionCompleteWithWarning stops the run as completed, with a warning.
	ActionCompleteWithWarning Action = "complete_with_warning"
	// ActionInjectSteer refuses the call with an override constraint; one
	// more repeat despite it stops the run with SYSTEM_ERROR.
	ActionInjectSteer Action = "inject_steer"
)

// Policy holds the loop guard's rules and what they share.
type Policy struct {
	// Action is what a ladder step with do: action does.
	Action Action `json:"action"`
	// Exempt lists tools the guard ignores: their calls and results count
	// toward no rule, break no streak and open no round.
	Exempt []string `json:"exempt,omitempty"`
	// IgnoreArgs lists top-level argument keys the rules leave out of a
	// call's identity unless they list their own (Rule.IgnoreArgs).
	IgnoreArgs []string `json:"ignore_args,omitempty"`
	// Classes names groups of tools, such as polling or read-only tools,
	// for the rules' Match and Tools. A class name wins over a tool of the
	// same name.
	Classes map[string][]string `json:"classes,omitempty"`
	// Rules are the detectors, in the order they are evaluated and their
	// advice published.
	Rules Rules `json:"rules"`
	// Vocabulary names the shell tools and their argument keys, whose
	// commands' exit statuses are read by what the command is
	// (internal/exitcode): grep finding nothing is an answer, not a
	// failure. The guard's policy sets it from the shared tools section.
	Vocabulary workspace.Vocabulary `json:"-"`
}

// Bounds on the policy, which bound the state.
const (
	MaxRules     = 16        // rules in a policy
	MaxSteps     = 8         // steps in a ladder
	MaxWindow    = 64        // items in a sliding window
	MaxCycle     = 8         // the longest pattern a consecutive window finds
	MaxKeys      = 256       // keys a run window counts apart; further ones share one count
	MaxRefused   = 16        // signatures and tools one rule refuses at once
	MaxSeenTools = 8         // distinct tools remembered for MinTools
	MaxPending   = 64        // calls awaiting a result
	MaxArgSets   = 4         // distinct ignore_args lists, the loop's included
	maxNameLen   = 64        // bytes of a rule's name
	maxAt        = 1_000_000 // the highest count a step may wait for
)

// DefaultPolicy returns the defaults of the reference designs, as rules:
// advise at 3 identical calls in a row and act (fail) at 5; hint at 4
// rounds in a row in which one tool failed with varying arguments, in
// runs that have another tool to turn to; advise when the last 6 calls alternate
// between two; advise at 3 all-error rounds in a row and stop at 6; advise
// at 3 identical assistant messages with no tool result between and stop
// at 5; advise at 5 compactions in a row with no tool activity and stop at
// 10; per run, advise at the 5th spawn_agent and the 50th read_file call
// and reject every one past it (sub-agents multiply load, and a model
// that discovers fan-out spawns until it rate-limits itself; 50 reads is
// well past what a focused change needs). An accepted resume resets every
// rule but the per-run budgets.
func DefaultPolicy() Policy {
	resume := []Trigger{OnResume}
	budget := func(n int) Override {
		return Override{Ladder: []Step{
			{At: n, Do: DoAdvise, Steer: event.SteerNarrowScope},
			{At: n + 1, Do: DoReject, Reason: event.ReasonLimitExceeded, Every: true},
		}}
	}
	return Policy{
		Action:     ActionFail,
		Vocabulary: workspace.DefaultVocabulary(),
		Rules: Rules{
			{Name: "identical_call", ResetOn: resume, Ladder: []Step{
				{At: 3, Do: DoAdvise, Steer: event.SteerAvoidRepeat},
				{At: 5, Do: DoAction},
			}},
			{Name: "same_tool", Count: CountResults, Only: OnlyFailed, Result: ResultNone, Identity: []Field{FieldTool}, Unit: UnitRound,
				Varied: true, MinTools: 2, ResetOn: resume, Ladder: []Step{
					{At: 4, Do: DoAdvise, Steer: event.SteerVaryApproach},
				}},
			{Name: "ping_pong", Cycle: 2, MinCycle: 2, ResetOn: resume, Ladder: []Step{
				{At: 3, Do: DoAdvise, Steer: event.SteerBreakCycle},
			}},
			{Name: "mistakes", Count: CountRounds, Only: OnlyFailed, ResetOn: resume, Ladder: []Step{
				{At: 3, Do: DoAdvise, Steer: event.SteerReadErrors},
				{At: 6, Do: DoStop, Reason: event.ReasonTooManyMistakes},
			}},
			{Name: "monologue", Count: CountMessages, ResetOn: []Trigger{OnResult, OnResume}, Ladder: []Step{
				{At: 3, Do: DoAdvise, Steer: event.SteerRepeatMessage},
				{At: 5, Do: DoStop, Reason: event.ReasonLoopDetected},
			}},
			{Name: "compactions", Count: CountCompactions, ResetOn: []Trigger{OnCall, OnResult, OnResume}, Ladder: []Step{
				{At: 5, Do: DoAdvise, Steer: event.SteerCompactionLoop},
				{At: 10, Do: DoStop, Reason: event.ReasonLoopDetected},
			}},
			{Name: "fan_out", Identity: []Field{FieldTool}, Window: WindowRun, Match: []string{"read_file", "spawn_agent"},
				Tools: map[string]Override{"read_file": budget(50), "spawn_agent": budget(5)}},
		},
	}
}

// Validate reports every setting that makes no sense, each naming the
// rule and the field, joined into one error, or nil.
func (p Policy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("loop."+format, args...)) }
	switch p.Action {
	case ActionFail, ActionCompleteWithWarning, ActionInjectSteer:
	default:
		bad("action is %q; want %q, %q or %q", p.Action, ActionFail, ActionCompleteWithWarning, ActionInjectSteer)
	}
	for _, class := range slices.Sorted(maps.Keys(p.Classes)) {
		if class == "" || len(p.Classes[class]) == 0 || slices.Contains(p.Classes[class], "") {
			bad("classes[%q] must be a non-empty name listing non-empty tool names", class)
		}
	}
	for i, k := range p.IgnoreArgs {
		if k == "" {
			bad("ignore_args[%d] is empty; want an argument key", i)
		}
	}
	if _, sets := argSets(p); len(sets) > MaxArgSets {
		bad("rules list %d distinct ignore_args, the loop's included; the limit is %d", len(sets), MaxArgSets)
	}
	if len(p.Rules) > MaxRules {
		bad("rules has %d rules; the limit is %d", len(p.Rules), MaxRules)
	}
	for i := range p.Rules {
		r := &p.Rules[i]
		if slices.IndexFunc(p.Rules[:i], func(o Rule) bool { return o.Name == r.Name }) >= 0 {
			bad("rules[%d] repeats the name %q", i, r.Name)
		}
		errs = append(errs, r.validate()...)
	}
	return errors.Join(errs...)
}

// validate reports what is wrong with r.
func (r *Rule) validate() []error {
	var errs []error
	at := fmt.Sprintf("loop.rules[%s]", r.Name)
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(at+"."+format, args...)) }
	if !validName(r.Name) {
		return []error{fmt.Errorf("loop.rules: the name %q is not 1 to %d lower-case letters, digits and underscores", r.Name, maxNameLen)}
	}
	count := r.counted()
	switch count {
	case CountCalls, CountResults, CountRounds, CountMessages, CountCompactions:
	default:
		bad("count is %q; want calls, results, rounds, messages or compactions", r.Count)
	}
	if r.Only != "" && r.Only != OnlyFailed && r.Only != OnlyOK {
		bad("only is %q; want failed or ok", r.Only)
	}
	if r.Only != "" && count != CountResults && count != CountRounds {
		bad("only: results and rounds have outcomes, %s do not", count)
	}
	for _, f := range r.Identity {
		if f != FieldTool && f != FieldArgs && f != FieldPath {
			bad("identity has %q; want tool, args or path", f)
		}
	}
	if len(r.Identity) > 0 && count != CountCalls && count != CountResults && count != CountRounds {
		bad("identity: %s have no tool, args or path", count)
	}
	for i, k := range r.IgnoreArgs {
		if k == "" {
			bad("ignore_args[%d] is empty; want an argument key", i)
		}
	}
	if r.IgnoreArgs != nil && !r.hasArgs() {
		bad("ignore_args: the rule's identity has no arguments")
	}
	callish := count == CountCalls || count == CountResults
	if r.Result != "" && count != CountResults && !r.resets(OnProgress) {
		bad("result applies to results rules and to rules that reset on progress")
	}
	errs = append(errs, checkEquality(at, r.Result, r.Normalize)...)
	switch r.Unit {
	case "", UnitCall:
	case UnitRound, UnitTurn:
		if !callish {
			bad("unit: only calls and results collapse within a round or turn")
		}
	default:
		bad("unit is %q; want call, round or turn", r.Unit)
	}
	switch r.window() {
	case WindowConsecutive:
		if r.Size != 0 {
			bad("size applies to sliding windows")
		}
	case WindowSliding:
		if r.Size < 1 || r.Size > MaxWindow {
			bad("size is %d; a sliding window holds 1 to %d items", r.Size, MaxWindow)
		}
	case WindowRun:
		if r.Size != 0 {
			bad("size applies to sliding windows")
		}
	default:
		bad("window is %q; want consecutive, sliding or run", r.Window)
	}
	if r.Cycle < 0 || r.Cycle > MaxCycle || r.MinCycle < 0 || r.MinCycle > r.cycle() {
		bad("cycle is %d and min_cycle %d; want 1 <= min_cycle <= cycle <= %d", r.Cycle, r.MinCycle, MaxCycle)
	}
	if (r.Cycle > 1 || r.MinCycle > 1) && r.window() != WindowConsecutive {
		bad("cycle: only consecutive windows find patterns")
	}
	if r.Varied && (!callish || r.cycle() != 1 || r.window() != WindowConsecutive || len(r.Identity) == 0 || slices.Contains(r.Identity, FieldArgs)) {
		bad("varied applies to consecutive calls and results rules of cycle 1 whose identity leaves args out")
	}
	if r.MinTools < 0 || r.MinTools > MaxSeenTools {
		bad("min_tools is %d; want 0 to %d", r.MinTools, MaxSeenTools)
	}
	if slices.Contains(r.Match, "") {
		bad("match has an empty name")
	}
	for _, list := range []struct {
		key string
		ts  []Trigger
	}{{"reset_on", r.ResetOn}, {"rearm_on", r.RearmOn}} {
		for _, t := range list.ts {
			switch t {
			case OnTurn, OnResume, OnCompaction, OnCall, OnResult, OnStep, OnProgress:
			default:
				bad("%s has %q; want turn, resume, compaction, call, result, step or progress", list.key, t)
				continue
			}
			if t == own(count) {
				bad("%s has %q, which is what the rule counts", list.key, t)
			}
			if t == OnProgress && (count != CountCalls || r.window() != WindowConsecutive || list.key != "reset_on") {
				bad("%s: progress restarts consecutive calls rules only", list.key)
			}
		}
	}
	if !r.Disabled && len(r.Ladder) == 0 && !r.laddersPerTool() {
		bad("ladder is empty; give it at least one step, or set disabled, or give every tool it matches a ladder in tools")
	}
	errs = append(errs, r.checkLadder(at+".ladder", r.Ladder)...)
	for _, tool := range slices.Sorted(maps.Keys(r.Tools)) {
		o := r.Tools[tool]
		key := fmt.Sprintf("%s.tools[%q]", at, tool)
		if tool == "" {
			errs = append(errs, fmt.Errorf("%s: the key is empty", key))
		}
		if o.Result != "" && count != CountResults && !r.resets(OnProgress) {
			errs = append(errs, fmt.Errorf("%s.result applies to results rules and to rules that reset on progress", key))
		}
		errs = append(errs, checkEquality(key, o.Result, o.Normalize)...)
		errs = append(errs, r.checkLadder(key+".ladder", o.Ladder)...)
	}
	return errs
}

// checkLadder reports what is wrong with a ladder of r.
func (r *Rule) checkLadder(at string, ladder []Step) []error {
	var errs []error
	if len(ladder) > MaxSteps {
		errs = append(errs, fmt.Errorf("%s has %d steps; the limit is %d", at, len(ladder), MaxSteps))
	}
	count := r.counted()
	for i, s := range ladder {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%s[%d].%s", at, i, fmt.Sprintf(format, args...)))
		}
		if s.At < 1 || s.At > maxAt {
			bad("at is %d; want 1 or more", s.At)
		}
		if i > 0 && s.At <= ladder[i-1].At {
			bad("at is %d; steps must rise (the one before is at %d)", s.At, ladder[i-1].At)
		}
		switch s.Do {
		case DoAdvise, DoStop, DoCompleteWithWarning:
		case DoReject, DoInjectSteer, DoAction:
			if count != CountCalls {
				bad("do: %s refuses the call being judged, so it needs count: calls", s.Do)
			}
		case DoRefuse:
			if count != CountCalls && count != CountResults {
				bad("do: refuse needs count: calls or results, which name a signature and a tool")
			}
		default:
			bad("do is %q; want advise, reject, refuse, stop, inject_steer, complete_with_warning or action", s.Do)
		}
		if s.Steer != "" && !s.Steer.Valid() {
			bad("steer is %q, which is not a steer constraint of the wire contract", s.Steer)
		}
		if s.Reason != "" && !s.Reason.Valid() {
			bad("reason is %q, which is not a reason of the wire contract", s.Reason)
		}
		if s.Every && s.Do != DoAdvise && s.Do != DoReject {
			bad("every applies to advise and reject")
		}
		if s.Scope != "" && (s.Do != DoRefuse || s.Scope != ScopeSignature && s.Scope != ScopeTool) {
			bad("scope is %q; refusals take signature or tool", s.Scope)
		}
	}
	return errs
}

func checkEquality(at string, eq Equality, masks []Mask) []error {
	var errs []error
	switch eq {
	case "", ResultNone, ResultError, ResultExit, ResultOutput:
	default:
		errs = append(errs, fmt.Errorf("%s.result is %q; want none, error, exit or output", at, eq))
	}
	for _, m := range masks {
		if m != MaskDigits && m != MaskHex && m != MaskUUID {
			errs = append(errs, fmt.Errorf("%s.normalize has %q; want digits, hex or uuid", at, m))
		}
	}
	if len(masks) > 0 && eq != "" && eq != ResultOutput {
		errs = append(errs, fmt.Errorf("%s.normalize applies to result: output", at))
	}
	return errs
}

// counted returns what r counts, with the default.
func (r *Rule) counted() Counted {
	if r.Count == "" {
		return CountCalls
	}
	return r.Count
}

func (r *Rule) window() WindowKind {
	if r.Window == "" {
		return WindowConsecutive
	}
	return r.Window
}

func (r *Rule) cycle() int { return max(r.Cycle, 1) }

// laddersPerTool reports whether r watches only tools that its tools
// overrides give a ladder of their own (or turn off), so that its own
// ladder is never used.
func (r *Rule) laddersPerTool() bool {
	for _, m := range r.Match {
		if o, ok := r.Tools[m]; !ok || !o.Disabled && len(o.Ladder) == 0 {
			return false
		}
	}
	return len(r.Match) > 0
}

// hasArgs reports whether the arguments of calls make up r's items: its
// identity holds them, or it tells a streak's calls apart by them
// (varied).
func (r *Rule) hasArgs() bool {
	switch r.counted() {
	case CountCalls, CountResults:
		return len(r.Identity) == 0 || slices.Contains(r.Identity, FieldArgs) || r.Varied
	case CountRounds:
		return slices.Contains(r.Identity, FieldArgs)
	}
	return false
}

func (r *Rule) resets(t Trigger) bool { return slices.Contains(r.ResetOn, t) }

// own returns the trigger of the events a rule counting c counts, which it
// cannot also be reset by.
func own(c Counted) Trigger {
	switch c {
	case CountCalls:
		return OnCall
	case CountResults:
		return OnResult
	case CountMessages:
		return OnStep
	case CountCompactions:
		return OnCompaction
	}
	return ""
}

func validName(s string) bool {
	if s == "" || len(s) > maxNameLen {
		return false
	}
	for _, c := range []byte(s) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// StepAt returns the count at which the named rule first does one of dos,
// or 0 if the rule is missing, disabled, or never does: for tools that
// reason about a policy, such as an evaluation that injects faults.
func (p Policy) StepAt(rule string, dos ...Do) int {
	i := p.Rules.index(rule)
	if i < 0 || p.Rules[i].Disabled {
		return 0
	}
	for _, s := range p.Rules[i].Ladder {
		if slices.Contains(dos, s.Do) {
			return s.At
		}
	}
	return 0
}
