// Package round is the fan-in barrier of parallel tool rounds: the results
// of a round are released together, ordered by call id, once all of them
// are in, or once the round's wait runs out.
//
// An agent announces a round (a round event listing its calls and, in
// "wait", how many ms to wait for them) before it publishes the round's
// calls and results. A call of the round is settled when its result comes
// (an abandoned result too), or when the guards refuse it: a reject or a
// stop, whichever guard decided it (the barrier is a
// processors.RefusalObserver), or a reject of a call whose event went to
// the dead letters (processors.Chain.Refuse), since a refused call never
// has a result. When the last call of an open round is settled the barrier
// emits one settled decision whose Calls are the round's call ids in
// natural order (CompareIDs: digit runs compare as numbers, so c2 comes
// before c10) whatever order they settled in, with Missing empty and
// Refused listing the refused calls. The round is then closed: a second
// result for one of its calls changes nothing. The decision is about the
// round, not one call, so its Call is empty; its counters name the round
// (the round event's seq), its calls, the missing ones and, when there are
// any, the refused ones. A settled that a refusal completes comes after the
// refused call's verdict.
//
// A round with a wait sets a timer named "round-<seq>" (TimerName) with the
// round event's seq as generation. If the timer fires while the round is
// still open, the round settles with Missing listing the calls that are not
// settled (natural order), Refused the refused ones, Calls all of them, and
// rule "wait". A round that settles first cancels its timer; a timer that fires
// anyway finds the round closed and changes nothing. A round without a
// wait stays open until its results are in or the limit below closes it.
//
// # Limits
//
// At most Policy.MaxOpen rounds are open at a time. A round announced
// beyond that settles the oldest open round at once, with the results it
// has, Missing listing the others, and rule "max_open" — so an agent that
// waits for a round is always released, and the state stays bounded. A
// round lists 1 to event.MaxRoundCalls distinct calls; a round event that
// does not (which the runner dead-letters before any processor sees it) is
// ignored, and a call listed twice counts once.
//
// # Order of events
//
// Announce the round first. A result or a refusal counts only for rounds
// open when it arrives: one that comes before its round event is not
// counted, and that round settles only when its wait runs out (with the
// call missing) or when the limit closes it. A result for a call in no
// open round changes nothing; a call listed in several open rounds counts
// in each. After a stop the run is over: a round the stop did not complete
// stays open, and the agent stops waiting for it.
//
// Like every processor, the barrier is a pure function of its state and the
// event: time comes only as timer events.
package round
