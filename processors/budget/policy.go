package budget

import (
	"errors"
	"fmt"
	"slices"

	"github.com/guardstream/guardstream/event"
)

// Limit is a cap on one count. Max 0 turns it off. A hard limit stops the
// run when the count exceeds Max; a soft one draws a soft_limit advice
// once, when the count first exceeds Max, and the run goes on.
type Limit struct {
	Max  int64 `json:"max"`
	Soft bool  `json:"soft,omitempty"`
}

// Policy holds the limits of a run.
type Policy struct {
	// MaxTurns caps the user turns of the run.
	MaxTurns Limit `json:"max_turns"`
	// MaxToolRoundsPerTurn caps the tool rounds within one turn, in runs
	// whose steps report turns.
	MaxToolRoundsPerTurn Limit `json:"max_tool_rounds_per_turn"`
	// MaxSteps caps the LLM steps of the run.
	MaxSteps Limit `json:"max_steps"`
	// MaxToolCallsPerStep caps the tool calls between two steps.
	MaxToolCallsPerStep Limit `json:"max_tool_calls_per_step"`
	// MaxTokens caps the sum of the steps' prompt and completion tokens.
	MaxTokens Limit `json:"max_tokens"`
	// MaxCost caps the sum of the steps' cost, in micro-units.
	MaxCost Limit `json:"max_cost"`

	// MaxInFlight is the number of calls that may run at once, that is,
	// calls let through whose result has not arrived; further calls are
	// deferred. 0 turns deferral off.
	MaxInFlight int `json:"max_in_flight"`
	// MaxDeferred is the number of calls that may wait for a slot; a call
	// beyond it is rejected. 0 means none may wait: a call beyond
	// MaxInFlight is rejected at once.
	MaxDeferred int `json:"max_deferred"`

	// FanOut caps the calls of a tool per run, by tool name. An entry of 0
	// lifts the cap for that tool, FanOutDefault included. A policy decoded
	// over the defaults keeps the default entries it does not name.
	FanOut map[string]int64 `json:"fan_out,omitempty"`
	// FanOutDefault caps the calls per run of every tool FanOut does not
	// name. 0 turns it off.
	FanOutDefault int64 `json:"fan_out_default"`
}

// Bounds on the policy, which bound the state.
const (
	// MaxTools is the number of tools whose calls are counted one by one,
	// and the number of tools FanOut may name.
	MaxTools = 256
	// MaxQueue is the largest MaxInFlight and the largest MaxDeferred.
	MaxQueue = 1024
)

// DefaultPolicy returns the defaults of the reference designs: 32 turns,
// 32 tool rounds per turn, 128 steps, 16 calls per step, all hard; 8 calls
// in flight with up to 64 waiting; 5 spawn_agent and 50 read_file calls
// per run (sub-agents multiply load, and a model that discovers fan-out
// spawns until it rate-limits itself; 50 reads is well past what a focused
// change needs). Tokens and cost are unlimited by default: sensible caps
// depend on the model and its price, so each deployment sets its own.
func DefaultPolicy() Policy {
	return Policy{
		MaxTurns:             Limit{Max: 32},
		MaxToolRoundsPerTurn: Limit{Max: 32},
		MaxSteps:             Limit{Max: 128},
		MaxToolCallsPerStep:  Limit{Max: 16},
		MaxInFlight:          8,
		MaxDeferred:          64,
		FanOut:               map[string]int64{"spawn_agent": 5, "read_file": 50},
	}
}

// Validate reports every setting that makes no sense, joined into one
// error, or nil.
func (p Policy) Validate() error {
	var errs []error
	for _, l := range p.limits() {
		if l.limit.Max < 0 {
			errs = append(errs, fmt.Errorf("budget.%s.max is %d; want 0 (off) or more", l.rule, l.limit.Max))
		}
	}
	for _, q := range []struct {
		key string
		v   int
	}{{ruleInFlight, p.MaxInFlight}, {ruleDeferred, p.MaxDeferred}} {
		if q.v < 0 || q.v > MaxQueue {
			errs = append(errs, fmt.Errorf("budget.%s is %d; want 0 to %d", q.key, q.v, MaxQueue))
		}
	}
	if p.FanOutDefault < 0 {
		errs = append(errs, fmt.Errorf("budget.fan_out_default is %d; want 0 (off) or more", p.FanOutDefault))
	}
	if len(p.FanOut) > MaxTools {
		errs = append(errs, fmt.Errorf("budget.fan_out names %d tools; the limit is %d", len(p.FanOut), MaxTools))
	}
	tools := make([]string, 0, len(p.FanOut))
	for tool := range p.FanOut {
		tools = append(tools, tool)
	}
	slices.Sort(tools) // report in a stable order
	for _, tool := range tools {
		if n := p.FanOut[tool]; n < 0 {
			errs = append(errs, fmt.Errorf("budget.fan_out[%q] is %d; want 0 (no cap) or more", tool, n))
		}
		if tool == "" || len(tool) > event.MaxToolLen {
			errs = append(errs, fmt.Errorf("budget.fan_out has a key of %d bytes; want a tool name of 1 to %d bytes", len(tool), event.MaxToolLen))
		}
	}
	return errors.Join(errs...)
}

// Rules: the names of the limits, as decisions carry them in Rule.
const (
	ruleTurns    = "max_turns"
	ruleRounds   = "max_tool_rounds_per_turn"
	ruleSteps    = "max_steps"
	ruleCalls    = "max_tool_calls_per_step"
	ruleTokens   = "max_tokens"
	ruleCost     = "max_cost"
	ruleInFlight = "max_in_flight"
	ruleDeferred = "max_deferred"
	ruleFanOut   = "fan_out"
)

type namedLimit struct {
	rule  string
	limit Limit
}

func (p Policy) limits() []namedLimit {
	return []namedLimit{
		{ruleTurns, p.MaxTurns}, {ruleRounds, p.MaxToolRoundsPerTurn}, {ruleSteps, p.MaxSteps},
		{ruleCalls, p.MaxToolCallsPerStep}, {ruleTokens, p.MaxTokens}, {ruleCost, p.MaxCost},
	}
}

// hard reports whether n exceeds a hard limit.
func (l Limit) hard(n int64) bool { return l.Max > 0 && !l.Soft && n > l.Max }

// softCrossed reports whether a count going from prev to n first exceeds a
// soft limit.
func (l Limit) softCrossed(prev, n int64) bool {
	return l.Max > 0 && l.Soft && prev <= l.Max && n > l.Max
}
