package antipattern_test

import (
	"encoding/json"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/antipattern"
	"github.com/guardstream/guardstream/processors/processortest"
)

// cmd is a shell call of a recorded run and its result.
type cmd struct {
	line   string
	exit   int64
	verify bool
	out    string
}

func ok(line string) cmd                { return cmd{line: line} }
func fails(line string, out string) cmd { return cmd{line: line, exit: 1, verify: true, out: out} }
func testRun(line string, exit int64, out string) cmd {
	return cmd{line: line, exit: exit, verify: true, out: out}
}

// TestRealVerifications replays sequences quoted from real runs of a
// coding agent on SWE-bench (../shared/trajectories; workspace /testbed,
// one bash tool, err set on every non-zero exit, verify on test runs),
// each ending in a claimed success. The runs marked resolved did fix
// their issue, and were stopped before verification freshness; the near
// cases must still be stopped.
func TestRealVerifications(t *testing.T) {
	tests := []struct {
		name string
		cmds []cmd
		stop bool
	}{
		{"django-11119 (resolved): the fix changed after the failing run", []cmd{
			ok(`sed -i 's/x/y/' django/template/engine.py`),
			fails("python3 tests/runtests.py template_tests.test_loaders", "AssertionError: PermissionError not raised\n\nRan 20 tests in 0.116s\n\nFAILED (failures=1, skipped=1)"),
			ok("sed -i 's/return t.render(Context(context))/return t.render(Context(context, autoescape=self.autoescape))/' django/template/engine.py"),
			ok("python3 reproduce_issue.py"),
		}, false},
		{"astropy-13236 (resolved): the same failure on the reverted baseline", []cmd{
			ok("cat <<'EOF' > test_serialization.py\nimport numpy as np\nEOF"),
			ok("sed -i '1242,1247d' astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "=================== 2 failed, 185 passed, 6 skipped in 1.94s ==================="),
			ok("git checkout astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "=================== 1 failed, 186 passed, 6 skipped in 1.30s ==================="),
			ok("sed -i '1242,1247d' astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "=================== 1 failed, 186 passed, 6 skipped in 1.25s ==================="),
			ok("rm reproduce_issue.py test_serialization.py"),
		}, false},
		{"near astropy-13236: more failures than on the baseline", []cmd{
			ok("git checkout astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "1 failed, 186 passed"),
			ok("sed -i '1242,1247d' astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "3 failed, 184 passed"),
		}, true},
		{"near astropy-13236: a claim on the reverted work itself", []cmd{
			ok("sed -i '1242,1247d' astropy/table/table.py"),
			ok("git checkout astropy/table/table.py"),
			fails("pytest astropy/table/tests/test_mixin.py", "1 failed, 186 passed"),
		}, true},
		{"matplotlib-24970 (resolved): a baseline in one command line, then the work put back", []cmd{
			ok("sed -i 's/a/b/' lib/matplotlib/colors.py"),
			fails("cp lib/matplotlib/colors.py lib/matplotlib/colors.py.bak\ngit checkout lib/matplotlib/colors.py\npytest lib/matplotlib/tests/test_colors.py",
				"FAILED lib/matplotlib/tests/test_colors.py::test_double_register_builtin_cmap\n1 failed, 250 passed, 1 skipped in 3.15s"),
			ok("mv lib/matplotlib/colors.py.bak lib/matplotlib/colors.py"),
			ok("rm -f reproduce_issue.py test_fix.py check_bool.py check_empty_assign.py check_iinfo.py"),
		}, false},
		{"not from the runs: a stash, the tests, the stash back", []cmd{
			ok("sed -i 's/a/b/' src/app.py"),
			fails("git stash && pytest tests/", "2 failed, 40 passed"),
			ok("git stash pop"),
		}, false},
		{"not from the runs: a stash, the tests, and a claim on the stashed work", []cmd{
			ok("sed -i 's/a/b/' src/app.py"),
			ok("git stash"),
			fails("pytest tests/", "2 failed, 40 passed"),
		}, true},
		{"sympy-16886 (resolved): no test runner installed", []cmd{
			ok("sed -i 's/a/b/' sympy/crypto/crypto.py"),
			fails("python3 -m pytest sympy/crypto/tests/test_crypto.py", "/opt/miniconda3/envs/testbed/bin/python3: No module named pytest"),
			ok("python3 sympy/crypto/tests/test_crypto.py"),
		}, false},
		// The failing tests were there before the change: the run undid
		// its fix with the same substitution the other way round, saw the
		// same two exceptions, and did the fix again.
		{"sympy-19637 (resolved): the fix undone by hand, the same failures, the fix again", []cmd{
			ok("cat <<'EOF' > reproduce_issue.py\nfrom sympy.core.sympify import kernS\nEOF"),
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			ok("python reproduce_issue.py"),
			ok("cat <<'EOF' > test_kernS_functionality.py\nfrom sympy.core.sympify import kernS\nEOF"),
			testRun("pytest sympy/core/tests/test_sympify.py", 127, "bash: pytest: command not found"),
			fails("python -m pytest sympy/core/tests/test_sympify.py", "/opt/miniconda3/envs/testbed/bin/python: No module named pytest"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
			ok("sed -i '516s/^            hit/        hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py && python reproduce_issue.py && python test_kernS_functionality.py", sympyExceptions),
			ok("python reproduce_issue.py && python test_kernS_functionality.py"),
			ok("rm reproduce_issue.py test_kernS_functionality.py"),
			ok("git diff"),
		}, false},
		{"near sympy-19637: a second fix that is no undo, failing as the first", []cmd{
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
			ok("sed -i '516s/^            hit/                hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
		}, true},
		{"near sympy-19637: the fix undone, and the claim made on the undone work", []cmd{
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
			ok("sed -i '516s/^            hit/        hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
		}, true},
		{"near sympy-19637: the fix undone and done again, and more failures than on the undone work", []cmd{
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			ok("sed -i '516s/^            hit/        hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", sympyExceptions),
			ok("sed -i '516s/^        hit/            hit/' sympy/core/sympify.py"),
			fails("bin/test sympy/core/tests/test_sympify.py", "tests finished: 38 passed, 5 skipped, 5 exceptions, \nDO *NOT* COMMIT!"),
		}, true},
		// The failing tests pinned the old behaviour the issue asked to
		// change: their reports quote the text the run's edit replaced or
		// wrote, and the run read them before it claimed.
		{"django-16899 (resolved): the failing tests expect the old message, and were read", []cmd{
			ok("cat <<'EOF' > reproduce_issue.py\nimport django\nEOF"),
			ok("cat <<'EOF' > reproduce_issue_v2.py\nimport os\nEOF"),
			ok(djangoSed),
			ok("cat <<'EOF' > patch.py\nlines = 1\nEOF"),
			ok("python patch.py"),
			ok("python reproduce_issue_v2.py"),
			fails("python3 tests/runtests.py admin_checks", djangoFailure),
			ok(`nl -ba tests/admin_checks/tests.py | grep -C 20 "test_nonexistent_field"`),
			ok(`grep -r "readonly_fields" django/contrib/admin | grep "check"`),
			ok("rm reproduce_issue.py reproduce_issue_v2.py patch.py"),
			ok("nl -ba django/contrib/admin/checks.py | sed -n '770,785p'"),
			ok("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"),
		}, false},
		{"near django-16899: the old message expected, and the failing tests never read", []cmd{
			ok(djangoSed),
			fails("python3 tests/runtests.py admin_checks", djangoFailure),
			ok(`grep -r "readonly_fields" django/contrib/admin | grep "check"`),
			ok("git diff"),
		}, true},
		{"pytest-5809 (resolved): the failing test expects the old lexer, and was read", []cmd{
			ok("cat <<'EOF' > reproduce_issue.py\nimport sys\nEOF"),
			ok(pytestSed),
			ok("cat <<'EOF' > verify_fix.py\nimport sys\nEOF"),
			ok("python3 verify_fix.py"),
			ok(`sed -i 's/return "bad response: " + response/return "bad response: " + response.decode("utf-8")/' src/_pytest/pastebin.py`),
			ok("python3 verify_fix.py"),
			ok("cat src/_pytest/pastebin.py"),
			fails("pytest testing/test_pastebin.py", pytestFailure),
			ok("cat testing/test_pastebin.py"),
			ok("rm reproduce_issue.py verify_fix.py"),
			ok("cat src/_pytest/pastebin.py"),
		}, false},
		{"near pytest-5809: the failing test read, but it checks something the run did not change", []cmd{
			ok(pytestSed),
			fails("pytest testing/test_pastebin.py", "    def test_create_new_paste(self, pastebin, mocked_urlopen):\n>       assert result == \"https://bpaste.net/show/3c0c6750bd\"\nE       AssertionError: assert 'bad response: ' == 'https://bpaste.net/show/3c0c6750bd'\n1 failed, 3 passed in 1.83 seconds"),
			ok("cat testing/test_pastebin.py"),
		}, true},
		// The failing tests never ran: every error came in setting them up.
		{"psf-2931 (resolved): errors at setup only, the httpbin fixture missing", []cmd{
			ok("cat <<'EOF' > reproduce_issue.py\nimport requests\nEOF"),
			ok("cat <<'EOF' > test_params.py\nimport requests\nEOF"),
			ok(`sed -i '446,447c\                if data:\n                    body = data' requests/models.py`),
			ok("python3 reproduce_issue.py"),
			ok("cat <<'EOF' > test_fix.py\nimport requests\nEOF"),
			ok("python3 test_fix.py"),
			ok("python3 test_requests.py"),
			fails("pytest test_requests.py", "==================================== ERRORS ====================================\n____________ ERROR at setup of TestR\n[...]\nERROR test_requests.py::TestTimeout::test_none_timeout\n============= 85 passed, 1 xfailed, 9 warnings, 81 errors in 0.56s ============="),
			ok(`grep "test_.*bytes" test_requests.py`),
			ok(`grep -A 10 "def test_params_bytes_are_encoded" test_requests.py`),
			ok("rm reproduce_issue.py test_fix.py test_params.py"),
		}, false},
		{"near psf-2931: errors at setup, and a test that failed", []cmd{
			ok(`sed -i '446,447c\                if data:\n                    body = data' requests/models.py`),
			fails("pytest test_requests.py", "____________ ERROR at setup of test_a ____________\nFAILED test_requests.py::TestRequests::test_params_bytes_are_encoded - TypeError\n===== 1 failed, 84 passed, 81 errors in 0.56s ====="),
		}, true},
		// What the exemption for failures the run had looked into let
		// through: a command that merely names what the failing command
		// named.
		{"near: cd into the workspace, failing tests, git status from there", []cmd{
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("cd /testbed && pytest tests/test_core.py", "1 failed, 3 passed"),
			ok("cd /testbed && git status"),
		}, true},
		{"near: failing tests, then a listing of their directory", []cmd{
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("pytest tests/", "1 failed, 39 passed"),
			ok("ls tests/"),
		}, true},
		{"near: failing tests, then the diff of the test file", []cmd{
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("pytest tests/test_core.py", "E       assert 3 == 4\n1 failed, 3 passed"),
			ok("git diff tests/test_core.py"),
		}, true},
		{"near: failing tests, then the test file shown", []cmd{
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("pytest tests/test_core.py", "    def test_fix():\n>       assert compute(3) == 4\nE       assert 3 == 4\n1 failed, 3 passed"),
			ok("cat tests/test_core.py"),
		}, true},
		{"near: a failing run, a look at the diff, a claim", []cmd{
			ok(`sed -i 's/a/b/' src/_pytest/pastebin.py`),
			fails("pytest testing/test_pastebin.py", "1 failed, 3 passed"),
			ok("git diff"),
			ok("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"),
		}, true},
		{"near: cleaning up the run's own scripts is no change", []cmd{
			ok("cat <<'EOF' > reproduce_issue.py\nprint(1)\nEOF"),
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("pytest tests/test_core.py", "1 failed, 3 passed"),
			ok("rm reproduce_issue.py"),
		}, true},
		{"near: a script written and run after the failure, then removed", []cmd{
			ok(`sed -i 's/a/b/' src/core.py`),
			fails("pytest tests/test_core.py", "1 failed, 3 passed"),
			ok("cat <<'EOF' > verify_fix.py\nprint(1)\nEOF"),
			ok("python verify_fix.py"),
			ok("rm verify_fix.py"),
		}, true},
		{"astropy-13398: a new module of the fix, changed after the failure", []cmd{
			ok("cat <<'EOF' > astropy/coordinates/builtin_frames/itrs_observed_transforms.py\nimport numpy as np\nEOF"),
			fails("pytest astropy/coordinates/tests/test_intermediate_transformations.py", "1 failed, 68 passed, 3 skipped"),
			ok("sed -i '/DEBUG:/d' astropy/coordinates/builtin_frames/itrs_observed_transforms.py"),
		}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := processortest.NewHistory("acme", "r")
			h.Events()[0].Workspace = "/testbed"
			for _, c := range tt.cmds {
				b, _ := json.Marshal(map[string]string{"command": c.line})
				h.Call("bash", string(b))
				h.Add(event.Event{Kind: event.KindResult, Call: h.Events()[len(h.Events())-1].Call, Err: c.exit != 0, Exit: c.exit, Verify: c.verify, Out: c.out})
			}
			h.End(event.StatusCompleted)
			ch := processors.NewChain(antipattern.New(antipattern.DefaultPolicy()))
			r := ch.NewRun()
			var out processors.Out
			for _, ev := range h.Events() {
				ch.Apply(r, &ev, &out)
			}
			stopped := out.Stopped() != nil
			if stopped != tt.stop {
				t.Errorf("stopped %v, want %v: %v", stopped, tt.stop, out.Decisions)
			}
		})
	}
}

// Commands and outputs quoted from the real runs.
const (
	sympyExceptions = "ValueError: Name node can't be used with 'False' constant\n\n tests finished: 41 passed, 5 skipped, 2 expected to fail, 2 exceptions, \nin 0.26 seconds \nDO *NOT* COMMIT!"

	djangoSed     = `sed -i "774,776c\                        \"The value of '%s' refers to '%s', which is not a callable, an attribute of \"\n                        \"'%s', or an attribute of '%s'.\"" django/contrib/admin/checks.py`
	djangoFailure = `FAIL: test_nonexistent_field (admin_checks.tests.SystemChecksTestCase.test_nonexistent_field)
----------------------------------------------------------------------
Traceback (most recent call last):
  File "/testbed/tests/admin_checks/tests.py", line 807, in test_nonexistent_field
    self.assertEqual(errors, expected)
AssertionError: Lists differ: [<Err[48 chars][1]' refers to 'nonexistent', which is not a c[200 chars]35'>] != [<Err[48 chars][1]' is not a callable, an attribute of 'SongA[169 chars]35'>]
[...]
- [<Error: level=40, msg="The value of 'readonly_fields[0]' refers to 'i_dont_exist', which is not a callable, an attribute of 'CityInline', or an attribute of 'admin_checks.City'.", hint=None, obj=<class 'admin_checks.tests.SystemChecksTestCase.test_nonexistent_field_on_inline.<locals>.CityInline'>, id='admin.E035'>]
+ [<Error: level=40, msg="The value of 'readonly_fields[0]' is not a callable, an attribute of 'CityInline', or an attribute of 'admin_checks.City'.", hint=None, obj=<class 'admin_checks.tests.SystemChecksTestCase.test_nonexistent_field_on_inline.<locals>.CityInline'>, id='admin.E035'>]

----------------------------------------------------------------------
Ran 56 tests in 0.026s

FAILED (failures=2)`

	pytestSed     = `sed -i 's/"lexer": "python3" if sys.version_info\[0\] >= 3 else "python",/"lexer": "text",/' src/_pytest/pastebin.py`
	pytestFailure = `_______________________ TestPaste.test_create_new_paste ________________________
    def test_create_new_paste(self, pastebin, mocked_urlopen):
        result = pastebin.create_new_paste(b"full-paste-contents")
        lexer = "python3" if sys.version_info[0] >= 3 else "python"
        assert url == "https://bpaste.net"
>       assert "lexer=%s" % lexer in data.decode()
E       AssertionError: assert ('lexer=%s' % 'python3') in 'code=full-paste-contents&lexer=text&expiry=1week'
testing/test_pastebin.py:131: AssertionError
=========================== short test summary info ============================
FAILED testing/test_pastebin.py::TestPaste::test_create_new_paste - Assertion...
====================== 1 failed, 3 passed in 1.83 seconds ======================`
)
