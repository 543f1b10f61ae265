package exitcode_test

import (
	"testing"

	"github.com/guardstream/guardstream/internal/exitcode"
)

// TestReal judges results quoted from real runs of a coding agent on
// SWE-bench (../shared/trajectories) whose exit statuses were read as
// failures, and near cases that are failures.
func TestReal(t *testing.T) {
	tests := []struct {
		run, cmd string
		exit     int64
		out      string
		kind     exitcode.Kind
		want     exitcode.Outcome
	}{
		{"pylint-8898", `pylint --bad-names-rgxs="foo,bar" foo.py`, 16, "", exitcode.Pylint, exitcode.Answer},
		{"pylint-8898", `echo "myvar = 1" > foo.py && pylint --bad-names-rgxs="myvar" foo.py`, 16, "", exitcode.Pylint, exitcode.Answer},
		{"pylint-8898", `pylint --bad-names-rgxs="(my{1,3}var)" foo.py`, 2, "", exitcode.Pylint, exitcode.Answer},
		{"pylint usage error", `pylint --no-such-option foo.py`, 32, "", exitcode.Pylint, exitcode.Failure},
		{"django-13315", `grep -r "apply_limit_choices_to_to_formfield" django`, 1, "", exitcode.Search, exitcode.Answer},
		{"grep error", `grep -r x nope/`, 2, "grep: nope/: No such file or directory", exitcode.Search, exitcode.Failure},
		{"cd then grep", `cd /testbed && grep -n "def foo" src/a.py`, 1, "", exitcode.Search, exitcode.Answer},
		{"grep into head", `grep -rn foo . | head -5`, 1, "", exitcode.Plain, exitcode.Failure},
		{"rg", `rg -n "TODO" src`, 1, "", exitcode.Search, exitcode.Answer},
		{"diff", `diff a.txt b.txt`, 1, "1c1", exitcode.Compare, exitcode.Answer},
		{"git diff --exit-code", `git diff --exit-code`, 1, "", exitcode.Compare, exitcode.Answer},
		{"git diff", `git diff`, 1, "", exitcode.Plain, exitcode.Failure},
		{"test", `[ -f setup.py ]`, 1, "", exitcode.Compare, exitcode.Answer},
		{"flake8", `flake8 src/`, 1, "src/a.py:1:1: F401", exitcode.Lint, exitcode.Answer},
		{"mypy crash", `python -m mypy src`, 2, "", exitcode.Lint, exitcode.Failure},
		{"astropy-13236", `pytest astropy/table/tests/test_mixin.py`, 1, "1 failed, 186 passed", exitcode.Pytest, exitcode.Answer},
		{"pytest usage", `pytest tests/nope.py`, 4, "ERROR: file or directory not found", exitcode.Pytest, exitcode.NotRun},
		{"pytest none collected", `pytest -k nothing`, 5, "no tests ran", exitcode.Pytest, exitcode.NotRun},
		{"sympy-15017", `python3 -m pytest sympy/tensor/array/tests/test_immutable_ndim_array.py`, 1,
			"/opt/miniconda3/envs/testbed/bin/python3: No module named pytest", exitcode.Pytest, exitcode.NotRun},
		{"sympy-19637", `pytest sympy/core/tests/test_sympify.py`, 127, "bash: pytest: command not found", exitcode.Pytest, exitcode.NotRun},
		{"sympy-19637", `bin/test sympy/core/tests/test_sympify.py`, 1, "2 exceptions", exitcode.Test, exitcode.Answer},
		{"django-11119", `python3 tests/runtests.py template_tests.test_loaders`, 1, "FAILED (failures=1, skipped=1)", exitcode.Test, exitcode.Answer},
		{"django-11276", `./tests/runtests.py utils_tests.test_html`, 1, "FAILED (errors=1)", exitcode.Test, exitcode.Answer},
		{"manage.py", `python manage.py test app`, 1, "", exitcode.Test, exitcode.Answer},
		{"go test", `go test ./...`, 1, "", exitcode.Test, exitcode.Answer},
		{"sh -c", `bash -c "grep -q foo bar.txt"`, 1, "", exitcode.Search, exitcode.Answer},
		{"timeout", `timeout 60 grep -r foo .`, 124, "", exitcode.Search, exitcode.Failure},
		{"a script", `python reproduce_issue.py`, 1, "Traceback (most recent call last):", exitcode.Plain, exitcode.Failure},
		{"not found", `pyflakes x.py`, 127, "pyflakes: command not found", exitcode.Lint, exitcode.NotRun},
		{"killed", `python slow.py`, 137, "", exitcode.Plain, exitcode.Failure},
		{"pytest timeout", `pytest lib/matplotlib/tests/test_axes.py`, 0, "", exitcode.Pytest, exitcode.Success},
	}
	for _, tt := range tests {
		k := exitcode.Of(tt.cmd)
		if k != tt.kind {
			t.Errorf("%s: Of(%q) = %s, want %s", tt.run, tt.cmd, k, tt.kind)
		}
		if got := exitcode.Judge(k, tt.exit != 0, tt.exit, tt.out); got != tt.want {
			t.Errorf("%s: %q exit %d: %s, want %s", tt.run, tt.cmd, tt.exit, got, tt.want)
		}
	}
	// A timeout: the tool's error, no exit status.
	if got := exitcode.Judge(exitcode.Pytest, true, 0, "timed out"); got != exitcode.Failure {
		t.Errorf("an error without an exit status: %s, want failure", got)
	}
}

func TestOfArgv(t *testing.T) {
	if k := exitcode.OfArgv([]string{"rg", "-n", "x y", "src"}); k != exitcode.Search {
		t.Errorf("OfArgv(rg ...) = %s", k)
	}
}

func TestEnvironmental(t *testing.T) {
	for out, want := range map[string]bool{
		"UnicodeDecodeError: 'ascii' codec can't decode byte 0xc2 in position 257":      true, // django-11276
		"AssertionError: PermissionError not raised":                                    true, // django-11119
		"requests.exceptions.ConnectionError: ... Temporary failure in name resolution": true,
		"AssertionError: assert 3 == 4":                                                 false,
	} {
		if _, got := exitcode.Environmental(out); got != want {
			t.Errorf("Environmental(%q) = %v, want %v", out, got, want)
		}
	}
}

func TestFailures(t *testing.T) {
	for out, want := range map[string]int{
		"=================== 1 failed, 186 passed, 6 skipped in 1.30s ===================": 1,  // astropy-13236
		"============= 85 passed, 1 xfailed, 9 warnings, 81 errors in 0.56s =============": 81, // psf-2931
		"Ran 16 tests in 0.108s\n\nFAILED (failures=5, errors=1)":                          6,  // django-11276
		"tests finished: 41 passed, 5 skipped, 2 expected to fail, 2 exceptions, ":         2,  // sympy-19637
		"=== 7 failed, 2 passed, 844 deselected, 87 warnings in 3.72s ===":                 7,
		"all good: 12 passed": -1,
		"":                    -1,
	} {
		if got := exitcode.Failures(out); got != want {
			t.Errorf("Failures(%q) = %d, want %d", out, got, want)
		}
	}
}

// TestSetupOnly quotes the two real runs whose pytest errors all came in
// setting tests up: psf-2931 (the httpbin fixture is not installed) and
// scikit-learn-14053 (a fixture breaks on the installed matplotlib).
func TestSetupOnly(t *testing.T) {
	for out, want := range map[string]bool{
		"==================================== ERRORS ====================================\n____________ ERROR at setup of TestR\n[...]\nERROR test_requests.py::TestTimeout::test_none_timeout\n============= 85 passed, 1 xfailed, 9 warnings, 81 errors in 0.56s =============": true,
		"____ ERROR at setup of test_plot_tree_gini ____\nE       TypeError: use() got an unexpected keyword argument 'warn'\n==================== 7 passed, 1 warning, 2 errors in 0.61s ====================":                                                                   true,
		"____ ERROR at setup of test_a ____\nFAILED tests/test_x.py::test_b - assert 1 == 2\n=== 1 failed, 3 passed, 1 error in 0.2s ===":                                                                                                                                         false, // a test failed too
		"____ ERROR collecting tests/test_x.py ____\nImportError: cannot import name 'f'\n____ ERROR at setup of test_a ____\n=== 2 errors in 0.2s ===":                                                                                                                           false, // the code does not import
		"=== 1 failed, 39 passed in 0.84s ===": false,
		"=== 2 errors in 0.1s ===":             false, // errors, but not at setup
	} {
		if got := exitcode.SetupOnly(out); got != want {
			t.Errorf("SetupOnly(%.60q) = %v, want %v", out, got, want)
		}
	}
}
