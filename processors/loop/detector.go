package loop

import (
	"fmt"
	"slices"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/canon"
	"github.com/guardstream/guardstream/processors"
)

// Name is the detector's processor name.
const Name = "loop"

// Detector is the loop-detection processor.
type Detector struct {
	p Policy
}

// New returns a detector with policy p, which must be valid.
func New(p Policy) *Detector {
	p.Exempt = slices.Clone(p.Exempt)
	return &Detector{p: p}
}

// Name returns "loop".
func (*Detector) Name() string { return Name }

// NewState returns the state of a fresh run.
func (d *Detector) NewState() processors.State { return &State{} }

// Apply counts calls, results and steps and decides.
func (d *Detector) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindCall:
		d.call(s, ev, out)
	case event.KindResult:
		d.result(s, ev, out)
	case event.KindStep:
		d.closeRound(s, out)
	}
}

// Signature returns the identity of a call: an xxhash over the tool name,
// the canonical arguments and the target path.
func Signature(tool, args, path string) uint64 {
	a, _ := canon.Hash(args)
	return canon.Combine(xxhash.Sum64String(tool), a, xxhash.Sum64String(path))
}

// SigString formats a signature as wire constraints carry it.
func SigString(sig uint64) string { return fmt.Sprintf("%016x", sig) }

func (d *Detector) exempt(tool string) bool { return slices.Contains(d.p.Exempt, tool) }

func (d *Detector) call(s *State, ev *event.Event, out *processors.Out) {
	if d.exempt(ev.Tool) {
		return
	}
	sig := Signature(ev.Tool, ev.Args, ev.Path)
	same := s.Repeat > 0 && sig == s.Sig
	if ev.Tool == s.Tool {
		// Calls to one tool in a parallel round are fan-out, not a streak:
		// only a call that opens a round extends it.
		if s.Round.Calls == 0 {
			s.ToolRun++
		}
		s.ToolVaried = s.ToolVaried || !same
	} else {
		s.Tool, s.ToolRun, s.ToolVaried = ev.Tool, 1, false
	}
	if same {
		s.Repeat++
	} else {
		s.Sig, s.Repeat, s.Overridden, s.HaveResult = sig, 1, false, false
	}
	if n := d.p.PingPongWindow; n > 0 {
		s.push(sig, n)
	}

	if d.repeats(s, ev, out) {
		return // refused or stopped: the call will not run
	}
	if d.p.SameToolHint > 0 && s.ToolRun == d.p.SameToolHint && s.ToolVaried {
		out.Advise(event.Steer{Kind: event.SteerVaryApproach, Tool: ev.Tool},
			fmt.Sprintf("%s was called %d times in a row with different arguments; step back and consider another tool, a narrower query, or delegating", ev.Tool, s.ToolRun),
			processors.Count("same_tool", s.ToolRun))
	}
	if n := d.p.PingPongWindow; n > 0 {
		switch alt := s.alternating(n); {
		case alt && !s.Cycling:
			s.Cycling = true
			out.Advise(event.Steer{Kind: event.SteerBreakCycle, Sig: SigString(sig)},
				fmt.Sprintf("the last %d calls alternate between the same two calls; break the cycle", n),
				processors.Count("window", n))
		case !alt:
			s.Cycling = false
		}
	}
	s.Round.Calls++
	s.addPending(ev.Call, sig)
}

// repeats applies the identical-call thresholds and reports whether the
// call was refused or the run stopped.
func (d *Detector) repeats(s *State, ev *event.Event, out *processors.Out) bool {
	p, n := d.p, s.Repeat
	switch {
	case p.RepeatLimit > 0 && s.Overridden && n > p.RepeatLimit:
		out.Stop(event.ReasonSystemError, event.StatusFailed,
			fmt.Sprintf("%s repeated the call %s again after an override constraint", ev.Tool, SigString(s.Sig)),
			processors.Count("repeat", n))
		return true
	case p.RepeatLimit > 0 && n == p.RepeatLimit:
		sig := SigString(s.Sig)
		msg := fmt.Sprintf("the same %s call (signature %s) was made %d times in a row", ev.Tool, sig, n)
		switch p.Action {
		case ActionCompleteWithWarning:
			out.Stop(event.ReasonLoopDetected, event.StatusCompleted, "completed with a warning: "+msg, processors.Count("repeat", n))
		case ActionInjectSteer:
			s.Overridden = true
			out.Advise(event.Steer{Kind: event.SteerOverride, Sig: sig, Tool: ev.Tool},
				msg+"; this call was refused, and repeating it once more stops the run", processors.Count("repeat", n))
			out.Reject(event.ReasonLoopDetected, msg+"; refused", processors.Count("repeat", n))
		default:
			out.Stop(event.ReasonLoopDetected, event.StatusFailed, msg, processors.Count("repeat", n))
		}
		return true
	case p.RepeatAdvise > 0 && n == p.RepeatAdvise:
		out.Advise(event.Steer{Kind: event.SteerAvoidRepeat, Sig: SigString(s.Sig), Tool: ev.Tool},
			fmt.Sprintf("you have made this exact %s call %d times in a row; it will keep producing the same result, so change the arguments or the approach", ev.Tool, n),
			processors.Count("repeat", n))
	}
	return false
}

func (d *Detector) result(s *State, ev *event.Event, out *processors.Out) {
	sig, ok := s.takePending(ev.Call)
	if !ok {
		return // a call the detector did not count: exempt, refused, or forgotten
	}
	if d.p.ProgressAware && sig == s.Sig {
		h := resultHash(ev)
		if s.HaveResult && h != s.ResultHash && s.Repeat > 1 {
			// The same call produced something new: progress, not a loop.
			s.Repeat, s.Overridden = 1, false
		}
		s.ResultHash, s.HaveResult = h, true
	}
	s.Round.Results++
	if ev.Err {
		s.Round.Errors++
	} else {
		s.Mistakes = 0
	}
	if len(s.Pending) == 0 {
		d.closeRound(s, out)
	}
}

func resultHash(ev *event.Event) uint64 {
	h := xxhash.Sum64String(ev.Out)
	if ev.Err {
		h = ^h
	}
	return h
}

// closeRound ends the open round, if any, and counts it as a mistake when
// every result in it was an error.
func (d *Detector) closeRound(s *State, out *processors.Out) {
	r := s.Round
	s.Round, s.Pending = Round{}, s.Pending[:0]
	if r.Results == 0 || r.Errors < r.Results {
		return
	}
	s.Mistakes++
	p, n := d.p, s.Mistakes
	switch {
	case p.MistakeLimit > 0 && n >= p.MistakeLimit:
		out.Stop(event.ReasonTooManyMistakes, event.StatusFailed,
			fmt.Sprintf("%d tool rounds in a row failed", n), processors.Count("mistakes", n))
	case p.MistakeAdvise > 0 && n == p.MistakeAdvise:
		out.Advise(event.Steer{Kind: event.SteerReadErrors},
			fmt.Sprintf("%d tool rounds in a row failed; re-read the error messages before acting again", n),
			processors.Count("mistakes", n))
	}
}
