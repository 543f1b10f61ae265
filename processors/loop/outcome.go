package loop

import (
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/exitcode"
)

// outcome is what a result of the pending call pc tells the rules:
// whether it counts at all, and whether it counts as a failure.
//
// An abandoned result (event.Event.Abandoned) reports a call the agent gave
// up on before it ran, because no verdict came within its deadline. Its
// call never ran, so it says nothing about the agent: it is neither a
// failure (it must not lead to TOO_MANY_MISTAKES) nor a success (it must
// not reset the streak, nor count as new output for progress, nor be an
// item of a rule that counts results, nor trigger a reset on results). It
// still ends the call, so a round waiting for it can close.
//
// A shell command's exit status is read by what the command is: a
// non-zero status that is its normal answer (grep finding nothing, diff
// finding a difference, a linter's findings) is not a failure.
func outcome(ev *event.Event, pc Pending) (counted, failed bool) {
	if ev.Abandoned {
		return false, false
	}
	return true, exitcode.Judge(exitcode.Kind(pc.Exit), ev.Err, ev.Exit, ev.Out).Failed()
}
