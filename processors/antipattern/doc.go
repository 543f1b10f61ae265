// Package antipattern detects the known failure modes of agent runs that
// no single call reveals.
//
// Hallucinated success (AP_HALLUCINATED_SUCCESS): a run that ends claiming
// "completed" while its last verification failed, or without producing an
// output it promised at run start, is stopped with HALLUCINATED_SUCCESS
// and outcome failed: its claim is overridden. A verification is a result
// with "verify" set; it failed if it is an error or its exit code is not
// 0, and only the last one counts. A declared output (run start "outputs")
// is produced by a successful result (no error, exit code 0) that lists it,
// or a path under it, in chg.paths, or by the successful result of a write
// tool's call whose path (its "path" field, a path key of its arguments, or
// a file a patch under its patch keys adds or updates) is that output or
// lies under it. The result is tied to its call by call
// id; a result that carries its own tool and path is taken as it is. Paths
// are compared after normalisation relative to the workspace, as the policy
// guard does.
//
// Planning loop (AP_PLANNING_LOOP): steps with "plan" set since the last
// applied change are counted. Past Policy.PlanningAdvise of them the run is
// advised, once, to commit to a plan (steer commit_plan); at
// Policy.PlanningStop it is stopped with PLANNING_LOOP. An applied change is
// a successful result that reports changes (chg with a count or a path) or
// the successful result of a write tool's call; it resets the count and
// re-arms the advice.
//
// The state is bounded: the outputs still missing (at most
// event.MaxDeclared), the last verification, counters, and the calls
// awaiting results (at most MaxPending, each with at most MaxCallPaths
// paths); a call evicted from it is not recognised when its result comes.
package antipattern
