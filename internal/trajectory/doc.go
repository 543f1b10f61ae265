// Package trajectory reads recorded agent runs, one JSON object per line,
// and turns each into the wire events an agent integrated with
// guardstream would have published while it ran.
//
// The format is the one of the real runs in ../shared/trajectories
// (docs/evaluation.md describes it): a run holds its tools, its LLM steps
// with their usage, each step's tool calls, and each call's result with
// its exit code and whether it verified the work. Events maps a run to
// run_start, step, call, result and run_end events the way a new user
// integrating that agent would, and says in Mapping which choices are
// left to that user.
package trajectory
