package exitcode

import "strings"

// Outcome is what a tool result means.
type Outcome uint8

// Outcomes.
const (
	// Success: the command exited 0 and the tool reported no error.
	Success Outcome = iota
	// Answer: a non-zero exit status that is the command's normal answer:
	// no match, a difference, a false condition, lint findings, failing
	// tests.
	Answer
	// Failure: the command failed.
	Failure
	// NotRun: the command could not run: not found (127) or not
	// executable (126), or, for a test runner, it ran no tests (a usage
	// error, none collected).
	NotRun
)

var outcomeNames = [...]string{"success", "answer", "failure", "not run"}

// String returns the outcome's name.
func (o Outcome) String() string {
	if int(o) < len(outcomeNames) {
		return outcomeNames[o]
	}
	return "outcome"
}

// Failed reports whether o counts as a failed tool call: a failure, or a
// command that could not run.
func (o Outcome) Failed() bool { return o == Failure || o == NotRun }

// Judge reads a result of a command of kind k: whether the tool reported
// an error, the process's exit status and its output. An error without an
// exit status (a timeout, a tool that could not start the command) is a
// failure. A test runner whose output says it is not installed ("No
// module named pytest") did not run.
func Judge(k Kind, err bool, exit int64, out string) Outcome {
	switch {
	case exit == 0 && !err:
		return Success
	case exit == 0:
		return Failure
	case exit == 126 || exit == 127:
		return NotRun
	case exit < 0 || exit > 125:
		return Failure // killed by a signal, or the shell's own errors
	case k.IsTest() && runnerMissing(out):
		return NotRun
	}
	switch k {
	case Search, Compare, Lint, Test:
		if exit == 1 {
			return Answer
		}
	case Pylint:
		if exit < 32 {
			return Answer
		}
	case Pytest:
		switch exit {
		case 1:
			return Answer
		case 4, 5:
			return NotRun
		}
	}
	return Failure
}

// runnerMissing reports whether out says a test runner is not installed.
func runnerMissing(out string) bool {
	for _, s := range [...]string{"No module named pytest", "No module named 'pytest'", "No module named nose", "No module named tox",
		"pytest: command not found", "pytest: not found"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}
