// Package exitcode says what the exit status of a shell command means. A
// non-zero status is not always a failure: grep and rg exit 1 when they
// find nothing, diff and cmp when the files differ, test and [ when the
// condition is false, linters (pylint, flake8, mypy, ruff, eslint, ...)
// when they have findings, and test runners when tests fail — each is the
// command's answer, not a failed tool call. 126 and 127 mean the command
// could not run at all.
//
// Every guard that judges tool results shares this one classification:
// the loop guard when it counts failed rounds, the antipattern guard when
// it judges a verification. Of classifies a command line once, when the
// call is made, into a Kind small enough to keep in a run's state; Judge
// then reads a result's exit status in its light.
//
// The command whose status a line reports is its last simple command
// ("cd src && grep -rn x ." reports grep's; "grep x f | head" reports
// head's), with wrappers such as timeout or sudo seen through, and sh -c
// scripts read.
package exitcode
