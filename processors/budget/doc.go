// Package budget enforces a run's limits: turns, tool rounds per turn,
// steps, tool calls per step, tokens, cost, and calls in flight. (Per-tool
// fan-out, a budget per tool and run, is the loop guard's fan_out rule.)
//
// Each counted limit is hard by default: the event that exceeds it stops
// the run with LIMIT_EXCEEDED, the limit's name in the decision's Rule, and
// the count and the limit as counters. A limit the policy marks soft draws
// one soft_limit advice instead, when the count first passes it, and the
// run goes on. A limit of 0 is off.
//
// What is counted, and when:
//
//   - A step counts one step. Its turn field opens a new turn when it is
//     greater than any turn seen before; a run that never reports turns is
//     one long turn. The step adds its tin and tout to the run's tokens and
//     its cost to the run's cost, and ends the current step's calls and
//     tool round. A step reports what already happened, so it is counted
//     even when it exceeds a limit.
//   - A call counts one call of the current step, and opens a tool round if
//     it is the first call since the last step (or since the run started).
//     Tool rounds are counted per turn, and limited per turn only in runs
//     whose steps report turns: without turns the whole run would be one
//     turn, and the limit would cap the run's rounds instead (max_steps
//     does that).
//   - In flight: a call the guard lets through stays in flight until its
//     result arrives. A call beyond max_in_flight is deferred into a FIFO
//     queue; each result of a call in flight releases the oldest deferred
//     calls, in stream order, while the calls in flight are fewer than
//     max_in_flight. A release is an allow for the deferred call, carried
//     by the result. A call that would make the queue longer than
//     max_deferred is rejected with Rule "max_deferred". There are no
//     timers: only results release calls.
//
// A call is checked against the limits in this order: tool rounds per
// turn, tool calls per step, calls in flight. The first limit that
// refuses the call decides its verdict, and a refused call (stopped or
// rejected) counts toward nothing: the counters only ever hold calls that
// run or wait to run. A deferred call is counted once, when it is
// deferred, and not again when it is released. Calls a guard earlier in
// the chain refused never reach this one, so the budget guard belongs last
// in the chain.
//
// The state is bounded: counts, and the calls in flight and the deferred
// calls as bounded slices of call ids.
//
// The guard is deterministic: it reads no clock, starts no goroutines,
// draws no random numbers, never iterates a map, and never encodes one in
// its state. The same state and event always give the same new state and
// the same decisions.
package budget
