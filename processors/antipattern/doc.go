// Package antipattern detects the known failure modes of agent runs that
// no single call reveals.
//
// Hallucinated success (AP_HALLUCINATED_SUCCESS): a run that ends claiming
// "completed" while its last verification failed, or without producing an
// output it promised at run start, is stopped with HALLUCINATED_SUCCESS
// and outcome failed: its claim is overridden. A verification is a result
// with "verify" set. How it reads is package exitcode's: it passed when the
// command exited 0 without an error; it did not run at all when the
// command was not found (126, 127), when the test runner is not installed
// ("No module named pytest") or ran no tests (pytest 4, 5), and then it is
// no verification; otherwise it failed. Only a failure that is still the
// verdict on the work when the run claims success counts (verification
// freshness):
//
//   - Changed since: a later call changed the work. A change is a write to
//     a workspace file (by a write tool, by a result's chg, or by a shell
//     command: sed -i, a redirection, cp, mv, rm, ...), or a command that
//     changes files it does not name (git apply, patch, git stash pop, git
//     checkout). Writes outside the workspace are not changes, and
//     removing a file the run created itself (a redirection, tee, touch,
//     mkdir made it) is cleaning up, not a change.
//   - An expectation the run made obsolete, and judged: the failure's
//     report quotes, in its assertions (pytest's "E" and ">" lines, an
//     AssertionError, unittest's "-" and "+" lines), a piece of a string
//     literal that the run's edits wrote or replaced (sed -i scripts, the
//     strings of a write tool's arguments; pieces of at least 6 bytes
//     between format directives), so the failing test checks what the run
//     changed on purpose; and a later call that changes nothing reads the
//     failing test (cat, nl, head, grep, ... or a read tool, naming a file
//     or label the test runner ran). Naming it without reading it (ls,
//     git status, git diff), or reading a test whose report quotes none
//     of the run's changes, is no excuse.
//   - Not run: its output blames the machine (exitcode.Environmental: an
//     ASCII locale, a permission test run as root, no network), or every
//     error came in setting the tests up and none failed
//     (exitcode.SetupOnly: a missing fixture).
//   - Pre-existing: the same test command failed on reverted work (after a
//     git stash, git checkout or git restore of files, or a sed
//     substitution that undoes one the run made, with no change since, or
//     with the revert in its own command line) with at least as many
//     failures (exitcode.Failures; counts that cannot be read compare
//     equal). A failure on reverted work with nothing changed since stays
//     the verdict: the work claimed is the reverted one. A substitution
//     that undoes an undo makes the change again.
//
// A declared output (run start "outputs")
// is produced by a successful result (no error, exit code 0) that lists it,
// or a path under it, in chg.paths, or by the successful result of a write
// tool's call whose path (its "path" field, a path key of its arguments, or
// a file a patch under its patch keys adds or updates) is that output or
// lies under it. The result is tied to its call by call
// id; a result that carries its own tool and path is taken as it is. Paths
// are compared after normalisation relative to the workspace, as the policy
// guard does. Shell tools are those the vocabulary names and the run's
// declared tools whose schema is a shell tool's (workspace.ShellSchema).
//
// Planning loop (AP_PLANNING_LOOP): steps with "plan" set since the last
// applied change are counted. Past Policy.PlanningAdvise of them the run is
// advised, once, to commit to a plan (steer commit_plan); at
// Policy.PlanningStop it is stopped with PLANNING_LOOP. An applied change is
// a successful result that reports changes (chg with a count or a path),
// the successful result of a write tool's call, or a shell command that
// changes the work as above; it resets the count and re-arms the advice.
//
// Failing test runs on unchanged work (rule retest): a test run whose
// tests fail is the runner's answer (exitcode.Answer), which the loop
// guard's mistakes rule does not count as a failed call. Run again with
// nothing changed, it answers what the run already knows. The verifying
// results whose tests failed are counted until the work changes (as
// above, less the run's own files: a log it writes, a script it
// rewrites) or a test run passes; Policy.RetestAdvise of them draw a
// read_errors advice, Policy.RetestStop stop the run with
// TOO_MANY_MISTAKES. A test run that could not run, or failed as a
// command, is the loop guard's to count, and leaves the count as it is.
//
// The state is bounded: the outputs still missing (at most
// event.MaxDeclared), the last verification (with at most MaxOperands
// operands and MaxCallPaths changed paths), at most MaxBaselines
// baselines, MaxScratch files the run created, MaxEdits substitutions,
// MaxQuoted pieces of text of at most MaxQuoteLen bytes,
// workspace.MaxShells declared shell tools and workspace.MaxWriters
// declared write tools, counters, and the calls awaiting results (at most
// MaxPending, each with at most MaxCallPaths paths, substitutions and
// pieces of each kind); a call evicted from it is not recognised when its
// result comes.
package antipattern
