package budget

import (
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Name is the guard's processor name.
const Name = "budget"

// Limiter is the budget processor.
type Limiter struct {
	p Policy
}

// New returns a limiter with policy p, which must be valid.
func New(p Policy) *Limiter { return &Limiter{p: p} }

// Name returns "budget".
func (*Limiter) Name() string { return Name }

// NewState returns the state of a fresh run.
func (*Limiter) NewState() processors.State { return &State{} }

// Apply counts steps, calls and results and decides.
func (l *Limiter) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	s := st.(*State)
	switch ev.Kind {
	case event.KindStep:
		l.step(s, ev, out)
	case event.KindCall:
		l.call(s, ev, out)
	case event.KindResult:
		l.result(s, ev, out)
	}
}

// count describes a counted limit for decisions: its rule, the name of its
// counter, and what it counts, as in "17 tool calls in this step".
type count struct {
	rule, counter, what string
}

var (
	turns  = count{ruleTurns, "turns", "turns in this run"}
	rounds = count{ruleRounds, "rounds", "tool rounds in this turn"}
	steps  = count{ruleSteps, "steps", "steps in this run"}
	calls  = count{ruleCalls, "calls", "tool calls in this step"}
	tokens = count{ruleTokens, "tokens", "tokens used in this run"}
	cost   = count{ruleCost, "cost", "micro-units of cost in this run"}
)

// exceeded stops the run: n exceeds the hard limit max of c.
func exceeded(out *processors.Out, c *count, n, max int64) {
	out.Stop(event.ReasonLimitExceeded, event.StatusFailed,
		fmt.Sprintf("%d %s, over the limit of %d; the run is stopped", n, c.what, max),
		processors.Count(c.counter, n), processors.Count("max", max)).Rule = c.rule
}

// softExceeded advises the agent that n passed the soft limit max of c.
func softExceeded(out *processors.Out, c *count, n, max int64) {
	out.Advise(event.Steer{Kind: event.SteerSoftLimit},
		fmt.Sprintf("%d %s, over the soft limit of %d; wrap up: finish the task or report what is left", n, c.what, max),
		processors.Count(c.counter, n), processors.Count("max", max)).Rule = c.rule
}

// step counts a step: it happened, so it is counted even when it exceeds a
// limit.
func (l *Limiter) step(s *State, ev *event.Event, out *processors.Out) {
	p := &l.p
	opened := ev.Turn > s.Turn
	prevTurns, prevTokens, prevCost := s.Turns, s.Tokens, s.Cost
	if opened {
		s.Turn, s.Turns, s.Rounds = ev.Turn, s.Turns+1, 0
	}
	s.Steps = addSat(s.Steps, 1)
	s.Calls, s.InRound = 0, false
	s.Tokens = addSat(addSat(s.Tokens, ev.TokensIn), ev.TokensOut)
	s.Cost = addSat(s.Cost, ev.Cost)

	checks := [...]struct {
		c       *count
		lim     Limit
		prev, n int64
		on      bool
	}{
		{&turns, p.MaxTurns, prevTurns, s.Turns, opened},
		{&steps, p.MaxSteps, s.Steps - 1, s.Steps, true},
		{&tokens, p.MaxTokens, prevTokens, s.Tokens, true},
		{&cost, p.MaxCost, prevCost, s.Cost, true},
	}
	for _, k := range checks {
		if k.on && k.lim.hard(k.n) {
			exceeded(out, k.c, k.n, k.lim.Max)
			return
		}
	}
	for _, k := range checks {
		if k.on && k.lim.softCrossed(k.prev, k.n) {
			softExceeded(out, k.c, k.n, k.lim.Max)
		}
	}
}

// call checks a call against the limits, in the order the package
// documentation gives, and counts it only if it will run.
func (l *Limiter) call(s *State, ev *event.Event, out *processors.Out) {
	p := &l.p
	opens := !s.InRound
	perTurn := opens && s.Turn > 0 // rounds are limited per turn only where turns are reported
	nRounds, nCalls := s.Rounds, s.Calls+1
	if opens {
		nRounds++
		if perTurn && p.MaxToolRoundsPerTurn.hard(nRounds) {
			exceeded(out, &rounds, nRounds, p.MaxToolRoundsPerTurn.Max)
			return
		}
	}
	if p.MaxToolCallsPerStep.hard(nCalls) {
		exceeded(out, &calls, nCalls, p.MaxToolCallsPerStep.Max)
		return
	}
	wait := p.MaxInFlight > 0 && (len(s.InFlight) >= p.MaxInFlight || len(s.Deferred) > 0)
	if wait && len(s.Deferred) >= p.MaxDeferred {
		n := int64(len(s.Deferred)) + 1
		out.Reject(event.ReasonLimitExceeded,
			fmt.Sprintf("the most calls allowed are in flight (%d) and waiting for a slot (%d); this call is refused: wait for results before calling again",
				len(s.InFlight), len(s.Deferred)),
			processors.Count("queued", n), processors.Count("max", p.MaxDeferred)).Rule = ruleDeferred
		return
	}

	// The call runs now or when released: count it, once.
	prevRounds := s.Rounds
	s.Rounds, s.Calls, s.InRound = nRounds, nCalls, true
	if perTurn && p.MaxToolRoundsPerTurn.softCrossed(prevRounds, nRounds) {
		softExceeded(out, &rounds, nRounds, p.MaxToolRoundsPerTurn.Max)
	}
	if p.MaxToolCallsPerStep.softCrossed(nCalls-1, nCalls) {
		softExceeded(out, &calls, nCalls, p.MaxToolCallsPerStep.Max)
	}
	switch {
	case wait:
		s.Deferred = append(s.Deferred, ev.Call)
		out.Defer(fmt.Sprintf("the most calls allowed at once are in flight (%d); this call waits for one of them to return, number %d in line",
			len(s.InFlight), len(s.Deferred)),
			processors.Count("in_flight", len(s.InFlight)), processors.Count("max", p.MaxInFlight),
			processors.Count("queued", len(s.Deferred))).Rule = ruleInFlight
	case p.MaxInFlight > 0:
		s.InFlight = append(s.InFlight, ev.Call)
	}
}

// result lands a call in flight and releases the oldest deferred calls
// while there is room. A call the agent abandoned lands like any other; if
// it was still deferred, it leaves the queue, since it will never run.
func (l *Limiter) result(s *State, ev *event.Event, out *processors.Out) {
	if !s.land(ev.Call) {
		if ev.Abandoned {
			s.unqueue(ev.Call)
		}
		return // not in flight: refused, deferred, unknown, or already landed
	}
	limit := l.p.MaxInFlight
	for len(s.Deferred) > 0 && (limit == 0 || len(s.InFlight) < limit) {
		call := s.dequeue()
		if limit > 0 {
			s.InFlight = append(s.InFlight, call)
		}
		out.Release(call, fmt.Sprintf("%s returned, so %s may run now", ev.Call, call)).Rule = ruleInFlight
	}
}
