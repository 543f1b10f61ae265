// Package round is the fan-in barrier of parallel tool rounds: the results
// of a round are released together, ordered by call id, once all of them
// are in, or once the round's wait runs out.
//
// An agent announces a round (a round event listing its calls and, in
// "wait", how many ms to wait for them) before it publishes the round's
// results. The barrier records each result of an open round; when the last
// one arrives it emits one settled decision whose Calls are the round's
// call ids in natural order (CompareIDs: digit runs compare as numbers, so
// c2 comes before c10) whatever order the results came in, with Missing
// empty. The round is then closed: a second result for one of its calls
// changes nothing. The decision is about the round, not one call, so its
// Call is empty; its counters name the round (the round event's seq), its
// calls and the missing ones.
//
// A round with a wait sets a timer named "round-<seq>" (TimerName) with the
// round event's seq as generation. If the timer fires while the round is
// still open, the round settles with Missing listing the calls whose
// results are not in (natural order) and Calls all of them, and rule
// "wait". A round that settles first cancels its timer; a timer that fires
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
// Announce the round first. A result counts only for rounds open when it
// arrives: a result that comes before its round event is not counted, and
// that round settles only when its wait runs out (with the call missing)
// or when the limit closes it. A result for a call in no open round
// changes nothing; a call listed in several open rounds counts in each.
//
// Like every processor, the barrier is a pure function of its state and the
// event: time comes only as timer events.
package round
