package loop

import (
	"fmt"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// decide publishes what a firing does. Every decision names its rule.
func (d *Detector) decide(s *State, f *firing, ev *event.Event, out *processors.Out) {
	r, st := &d.rules[f.rule], &f.step
	rs := s.rule(f.rule)
	fact, c := describe(r, &f.it, f.n, f.period)
	ctr := []event.Counter{c}
	limit := r.limit(f.it.tool)
	if limit > 0 {
		ctr = append(ctr, processors.Count("max", limit))
	}
	steer := event.Steer{Kind: r.steerFor(st)}
	if r.onCalls() && r.fields&fArgs != 0 {
		steer.Sig = SigString(f.it.call)
	}
	if r.onCalls() && f.period <= 1 {
		steer.Tool = f.it.tool
	}
	var dec *event.Decision
	switch {
	case f.followUp:
		reason := st.Reason
		if reason == "" {
			reason = event.ReasonSystemError
		}
		rs.Inject = 0
		dec = out.Stop(reason, event.StatusFailed,
			fmt.Sprintf("%s repeated the call %s again after an override constraint", f.it.tool, SigString(f.it.call)), ctr...)
	case st.Do == DoAdvise:
		msg := advice(r, steer.Kind, &f.it, f.n, fact)
		if limit >= f.n {
			msg += fmt.Sprintf("; every one past %d is refused", limit)
		}
		dec = out.Advise(steer, msg, ctr...)
	case st.Do == DoReject && st.Every:
		dec = out.Reject(r.reasonFor(st), fmt.Sprintf("%s; refused, as is every one past %d", fact, st.At-1), ctr...)
	case st.Do == DoReject:
		dec = out.Reject(r.reasonFor(st), fact+"; refused", ctr...)
	case st.Do == DoRefuse:
		what := "call of it"
		switch {
		case st.Scope == ScopeTool:
			what = f.it.tool + " call"
			rs.refuse(toolKey(f.it.th))
		case f.period > 1:
			what = "call of the cycle"
			for _, k := range rs.cycleCalls(f.period) {
				rs.refuse(k)
			}
		default:
			rs.refuse(f.it.call)
		}
		if ev.Kind == event.KindCall {
			dec = out.Reject(r.reasonFor(st), fact+"; refused, and every further "+what+" is refused for the rest of the run", ctr...)
		} else {
			steer.Kind = event.SteerOverride
			dec = out.Advise(steer, fact+"; every further "+what+" is refused for the rest of the run", ctr...)
		}
	case st.Do == DoInjectSteer:
		rs.Inject = f.n
		steer.Kind = event.SteerOverride
		out.Advise(steer, fact+"; this call was refused, and repeating it once more stops the run", ctr...).Rule = r.name
		dec = out.Reject(r.reasonFor(&Step{}), fact+"; refused", ctr...)
	case st.Do == DoCompleteWithWarning:
		dec = out.Stop(r.reasonFor(st), event.StatusCompleted, "completed with a warning: "+fact, ctr...)
	default: // DoStop
		dec = out.Stop(r.reasonFor(st), event.StatusFailed, fact, ctr...)
	}
	dec.Rule = r.name
}

// describe states what a rule counted, as the first clause of its
// decisions' messages, and the counter that carries the count.
func describe(r *rule, it *item, n, period int) (string, event.Counter) {
	if period > 1 {
		items := n * period
		ctr := processors.Count("window", items)
		what := "calls"
		if r.count == CountResults {
			what = "calls, with their results,"
		}
		if period == 2 {
			return fmt.Sprintf("the last %d %s alternate between the same two calls", items, what), ctr
		}
		return fmt.Sprintf("the last %d %s repeat the same %d calls over and over", items, what, period), ctr
	}
	if r.count == CountRounds && r.fields == 0 {
		outcome := ""
		switch r.only {
		case OnlyFailed:
			outcome = " failed"
		case OnlyOK:
			outcome = " succeeded"
		}
		return fmt.Sprintf("%d tool rounds %s%s", n, quantity(r), outcome), processors.Count("mistakes", n)
	}
	var subject, verb, counter string
	switch r.count {
	case CountCalls, CountResults:
		subject, verb, counter = fmt.Sprintf("the same %s call (signature %s)", it.tool, SigString(it.call)), "was made", "repeat"
		switch {
		case r.fields&fArgs == 0 && r.fields&fPath != 0:
			subject, verb, counter = it.tool+" of the same path", "was called", "same_path"
		case r.fields&fArgs == 0 && r.window == WindowRun:
			subject, verb, counter = it.tool, "was called", it.tool // a budget's count, as the tool's
		case r.fields&fArgs == 0:
			subject, verb, counter = it.tool, "was called", "same_tool"
		}
		switch {
		case r.only == OnlyFailed:
			verb, counter = "failed", "failures"
		case r.count == CountResults && r.variantFor(it.tool).eq != ResultNone:
			verb = "returned the same result"
		}
	case CountRounds:
		subject, verb, counter = "the same tool round", "was repeated", "repeat"
	case CountMessages:
		subject, verb, counter = "the same assistant message", "was repeated", "messages"
	case CountCompactions:
		subject, verb, counter = "the context", "was compacted", "compactions"
	}
	fact := fmt.Sprintf("%s %s %d times %s", subject, verb, n, quantity(r))
	if r.varied {
		fact += " with different arguments"
	}
	return fact, processors.Count(counter, n)
}

// limit returns the count past which r rejects every item of tool (a
// step that rejects every item from At on), or 0: the budget of a fan-out
// rule, which its decisions carry as the counter max.
func (r *rule) limit(tool string) int {
	for _, st := range r.variantFor(tool).ladder {
		if st.Do == DoReject && st.Every {
			return st.At - 1
		}
	}
	return 0
}

// quantity says over which window a count was taken.
func quantity(r *rule) string {
	switch r.window {
	case WindowSliding:
		return fmt.Sprintf("in the last %d %s", r.size, r.count)
	case WindowRun:
		return "in this run"
	}
	return "in a row"
}

// advice is an advise's message: what the rule counted and what to do.
func advice(r *rule, k event.SteerKind, it *item, n int, fact string) string {
	if k == event.SteerAvoidRepeat && r.count == CountCalls && r.fields&fArgs != 0 && r.window == WindowConsecutive && r.maxCycle == 1 {
		return fmt.Sprintf("you have made this exact %s call %d times in a row; it will keep producing the same result, so change the arguments or the approach", it.tool, n)
	}
	return fact + "; " + adviceFor[k]
}

// adviceFor says what each constraint asks of the model.
var adviceFor = map[event.SteerKind]string{
	event.SteerAvoidRepeat:    "it will keep producing the same result, so change the arguments or the approach",
	event.SteerVaryApproach:   "step back and consider another tool, a narrower query, or delegating",
	event.SteerBreakCycle:     "break the cycle",
	event.SteerReadErrors:     "re-read the error messages before acting again",
	event.SteerOverride:       "repeating it stops the run",
	event.SteerNarrowScope:    "narrow the search, or delegate",
	event.SteerRepeatMessage:  "act on it, or answer differently",
	event.SteerCompactionLoop: "stop and report what is left, or shed context another way",
	event.SteerSoftLimit:      "wrap up: finish the task or report what is left",
	event.SteerFixArgs:        "correct the arguments",
	event.SteerZeroResults:    "list the directory, try other names, or broaden the filter",
	event.SteerPathEscape:     "stay inside the workspace",
	event.SteerTestEdit:       "make sure the test, not the code, is what needs to change",
	event.SteerCommitPlan:     "commit to a plan and act",
}
