package exitcode

import (
	"regexp"
	"strconv"
	"strings"
)

// failureCounts match the counts of failed tests in test runners'
// summaries: pytest's "2 failed, 3 errors", unittest's "FAILED
// (failures=2, errors=1)", sympy's "2 failed, 1 exceptions".
var failureCounts = regexp.MustCompile(`\b(\d+) (?:failed|errors?|exceptions?)\b|\b(?:failures|errors)=(\d+)`)

// Failures returns the number of failed tests a test run's output reports
// in its summary (failures, errors and exceptions together), or -1 if it
// reports none that can be read. Only the output's last 4 KiB are read,
// where runners print their summary.
func Failures(out string) int {
	if len(out) > 4096 {
		out = out[len(out)-4096:]
	}
	n, found := 0, false
	for _, m := range failureCounts.FindAllStringSubmatch(out, -1) {
		digits := m[1]
		if digits == "" {
			digits = m[2]
		}
		if v, err := strconv.Atoi(digits); err == nil {
			n += v
			found = true
		}
	}
	if !found {
		return -1
	}
	return n
}

// setupCounts match pytest's summary counts that SetupOnly weighs: tests
// that failed, and errors.
var setupCounts = regexp.MustCompile(`\b(\d+) (failed|errors?)\b`)

// SetupOnly reports whether a test run's output says that no test failed
// and every error came in setting tests up: pytest's "ERROR at setup of"
// (a fixture the machine lacks, such as pytest-httpbin's httpbin, or one
// that breaks on an installed library's version), with no test failed and
// no module that failed to import ("ERROR collecting"). The failing tests'
// bodies never ran, so the run is no verdict on the code they test. Only
// the output's last 4 KiB are read for the summary.
func SetupOnly(out string) bool {
	if !strings.Contains(out, "ERROR at setup of") || strings.Contains(out, "ERROR collecting") {
		return false
	}
	tail := out
	if len(tail) > 4096 {
		tail = tail[len(tail)-4096:]
	}
	errors := false
	for _, m := range setupCounts.FindAllStringSubmatch(tail, -1) {
		switch {
		case m[2] == "failed" && m[1] != "0":
			return false
		case m[2] != "failed" && m[1] != "0":
			errors = true
		}
	}
	return errors
}
