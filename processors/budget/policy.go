package budget

import (
	"errors"
	"fmt"
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
}

// MaxQueue is the largest MaxInFlight and the largest MaxDeferred, which
// bound the state.
const MaxQueue = 1024

// DefaultPolicy returns defaults that fit autonomous agents, which spend
// one user turn on 30 to 150 tool rounds (a coding agent's SWE-bench run
// takes 14 to 145 steps, in one turn): 32 turns; 200 tool rounds per turn;
// 250 steps, the step limit coding agents set themselves (mini-swe-agent
// on SWE-bench); 32 calls per step, for agents that read and search in
// wide parallel rounds; all hard. 8 calls in flight with up to 64
// waiting. Tokens and cost are unlimited by default: sensible caps depend
// on the model and its price, so each deployment sets its own.
// docs/evaluation.md shows how these defaults do on real runs. (Per-tool
// budgets, fan-out, are the loop guard's fan_out rule.)
func DefaultPolicy() Policy {
	return Policy{
		MaxTurns:             Limit{Max: 32},
		MaxToolRoundsPerTurn: Limit{Max: 200},
		MaxSteps:             Limit{Max: 250},
		MaxToolCallsPerStep:  Limit{Max: 32},
		MaxInFlight:          8,
		MaxDeferred:          64,
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
