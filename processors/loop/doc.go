// Package loop detects agents that go round in circles, with rules given
// as policy data: the same call again and again, the same tool failing
// with ever-changing arguments, calls in a cycle (ping-pong), tool rounds
// that keep failing, the assistant repeating itself without acting, the
// context compacted again and again, and a tool called past its budget
// for the run (fan-out).
//
// A Rule says what it counts (calls before they run, results, rounds,
// messages, compactions), when two items are the same (tool, arguments,
// path, and for results their error flag, exit code or normalised
// output), over which window (consecutive, with cycles of up to MaxCycle
// calls; sliding; the whole run), which events reset or re-arm it (a new
// turn, a resume, a compaction, progress, ...), and its escalation ladder:
// advise, reject, refuse a signature or tool for the rest of the run,
// inject an override, stop with a typed reason, complete with a warning.
// Overrides per tool or class of tools adjust a rule, and MinTools keeps
// advice to "use another tool" away from agents that have none.
//
// A call's signature is an xxhash over the tool name, the canonical form
// of its arguments (key order, whitespace and number formatting do not
// matter; a rule's IgnoreArgs, or the policy's for a rule that lists
// none, leaves keys out) and its target path, each hashed apart.
//
// A tool round is the set of calls the agent issues before their results
// come back: a call opens a round when none is open, and the round closes
// when every call in it has a result, or when the next step or turn
// starts. The round event of the wire, which announces a parallel round
// for settling, plays no part in this.
//
// The detector is pure and bounded: every rule keeps a window, never a
// history, and a plain allowed call allocates nothing.
package loop
