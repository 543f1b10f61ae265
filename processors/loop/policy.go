package loop

import (
	"errors"
	"fmt"
)

// Action is what the detector does when identical calls reach
// Policy.RepeatLimit.
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

// Policy holds the detector's thresholds. A threshold of 0 turns its check
// off.
type Policy struct {
	// RepeatAdvise is the number of identical calls in a row that draws an
	// avoid_repeat constraint.
	RepeatAdvise int `json:"repeat_advise"`
	// RepeatLimit is the number of identical calls in a row that triggers
	// Action.
	RepeatLimit int `json:"repeat_limit"`
	// Action is what happens at RepeatLimit.
	Action Action `json:"action"`
	// SameToolHint is the number of consecutive tool rounds calling one
	// tool, with varying arguments, that draws a vary_approach hint. Calls
	// of one tool within a parallel round count once.
	SameToolHint int `json:"same_tool_hint"`
	// MistakeAdvise is the number of all-error rounds in a row that draws
	// a read_errors constraint.
	MistakeAdvise int `json:"mistake_advise"`
	// MistakeLimit is the number of all-error rounds in a row that stops
	// the run with TOO_MANY_MISTAKES.
	MistakeLimit int `json:"mistake_limit"`
	// PingPongWindow is the number of most recent calls that, alternating
	// between two signatures, draw a break_cycle constraint.
	PingPongWindow int `json:"ping_pong_window"`
	// ProgressAware, when set, treats an identical call whose result
	// differs from the previous one's as progress (polling a job), not as a
	// repeat.
	ProgressAware bool `json:"progress_aware"`
	// Exempt lists tools the detector ignores, such as polling tools.
	Exempt []string `json:"exempt,omitempty"`
}

// MaxWindow is the largest PingPongWindow allowed, which bounds the state.
const MaxWindow = 32

// DefaultPolicy returns the defaults of the reference designs: advise at 3
// identical calls, fail at 5, hint at 4 calls to one tool, advise at 3
// all-error rounds and stop at 6, ping-pong over 6 calls.
func DefaultPolicy() Policy {
	return Policy{
		RepeatAdvise:   3,
		RepeatLimit:    5,
		Action:         ActionFail,
		SameToolHint:   4,
		MistakeAdvise:  3,
		MistakeLimit:   6,
		PingPongWindow: 6,
	}
}

// Validate reports the first setting that makes no sense, or nil.
func (p Policy) Validate() error {
	var errs []error
	for _, t := range []struct {
		name string
		v    int
	}{
		{"repeat_advise", p.RepeatAdvise}, {"repeat_limit", p.RepeatLimit}, {"same_tool_hint", p.SameToolHint},
		{"mistake_advise", p.MistakeAdvise}, {"mistake_limit", p.MistakeLimit}, {"ping_pong_window", p.PingPongWindow},
	} {
		if t.v < 0 {
			errs = append(errs, fmt.Errorf("loop.%s is %d; want 0 (off) or more", t.name, t.v))
		}
	}
	if p.RepeatLimit > 0 && p.RepeatAdvise >= p.RepeatLimit {
		errs = append(errs, fmt.Errorf("loop.repeat_advise (%d) must be below loop.repeat_limit (%d)", p.RepeatAdvise, p.RepeatLimit))
	}
	if p.MistakeLimit > 0 && p.MistakeAdvise >= p.MistakeLimit {
		errs = append(errs, fmt.Errorf("loop.mistake_advise (%d) must be below loop.mistake_limit (%d)", p.MistakeAdvise, p.MistakeLimit))
	}
	if p.PingPongWindow != 0 && (p.PingPongWindow < 4 || p.PingPongWindow%2 != 0 || p.PingPongWindow > MaxWindow) {
		errs = append(errs, fmt.Errorf("loop.ping_pong_window is %d; want 0 (off) or an even number from 4 to %d", p.PingPongWindow, MaxWindow))
	}
	switch p.Action {
	case ActionFail, ActionCompleteWithWarning, ActionInjectSteer:
	default:
		errs = append(errs, fmt.Errorf("loop.action is %q; want %q, %q or %q", p.Action, ActionFail, ActionCompleteWithWarning, ActionInjectSteer))
	}
	return errors.Join(errs...)
}
