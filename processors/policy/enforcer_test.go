package policy_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/policy"
	"github.com/guardstream/guardstream/processors/processortest"
)

const ws = "/home/dev/proj"

// testPolicy has patterns for each kind of check.
func testPolicy() policy.Policy {
	p := policy.DefaultPolicy()
	p.Patterns = map[string]policy.Pattern{
		"code": {
			AllowedTools: []string{"read_file", "write_file", "edit_file", "apply_patch", "delete_file", "list_dir", "bash"},
			PathScope: policy.PathScope{
				Include: []string{"src/**", "tests/**", "go.mod"},
				Exclude: []string{"src/secrets/**", "**/*.pem"},
			},
			ForbiddenOperations: []policy.Operation{policy.OpGitPush, policy.OpDeleteTests},
			MaxChanges:          policy.MaxChanges{Files: 3, Lines: 100, Hunks: 5},
		},
		"git":    {PathScope: policy.PathScope{Include: []string{".git/**", "**"}}},
		"open":   {},
		"strict": {TestEdits: policy.TestEditsStrict},
		"tests":  {TestEdits: policy.TestEditsAllow},
		"nops":   {ForbiddenOperations: policy.Operations()},
	}
	p.Agents = map[string]string{"coder": "code"}
	p.Default = "open"
	return p
}

// run is a run start, then calls (and results) to decide.
type run struct {
	ws, pattern, agent string
}

// summary renders decisions compactly: "allow", "advise:test_edit",
// "reject:path_scope", "stop:max_changes".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		s := processortest.Brief(&d)
		if d.Steer == nil && d.Rule != "" {
			s = d.Kind.String() + ":" + d.Rule // the rule says more than POLICY_VIOLATION
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// decide starts a run and applies one call of tool with args and path,
// returning the call's decisions and their messages.
func decide(t *testing.T, p policy.Policy, r run, tool, args, path string) (string, []string) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	c := processors.NewChain(policy.New(p))
	st := c.NewRun()
	h := processortest.NewHistory("acme", "r1")
	start := &h.Events()[0]
	start.Workspace, start.Pattern, start.Agent = r.ws, r.pattern, r.agent
	h.Add(event.Event{Kind: event.KindCall, Call: "c1", Tool: tool, Args: args, Path: path})
	var out processors.Out
	var msgs []string
	for _, ev := range h.Events() {
		c.Apply(st, &ev, &out)
	}
	for _, d := range out.Decisions {
		if d.Kind != event.Allow && (d.Reason != "" && d.Reason != event.ReasonPolicyViolation) {
			t.Errorf("decision %s has reason %s, want %s", d.Kind, d.Reason, event.ReasonPolicyViolation)
		}
		if d.Msg != "" {
			msgs = append(msgs, d.Msg)
		}
	}
	return summary(out.Decisions), msgs
}

type callCase struct {
	name       string
	run        run
	tool, args string
	path       string
	want       string
	msg        string // a part of the first message, if set
}

func runCases(t *testing.T, p policy.Policy, tests []callCase) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msgs := decide(t, p, tt.run, tt.tool, tt.args, tt.path)
			if got != tt.want {
				t.Errorf("%s %s path=%q: got %q, want %q (%q)", tt.tool, tt.args, tt.path, got, tt.want, msgs)
			}
			if tt.msg != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tt.msg)) {
				t.Errorf("message %q does not contain %q", msgs, tt.msg)
			}
		})
	}
}

var (
	code = run{ws: ws, pattern: "code"}
	open = run{ws: ws, pattern: "open"}
)

func TestPatternResolution(t *testing.T) {
	runCases(t, testPolicy(), []callCase{
		{name: "unknown pattern rejects every call, naming the known ones", run: run{ws: ws, pattern: "nope"},
			tool: "read_file", args: `{"path":"src/a.go"}`, want: "reject:pattern",
			msg: `pattern "nope" is not defined; known patterns: code, git, nops, open, strict, tests`},
		{name: "the agent class selects the pattern", run: run{ws: ws, agent: "coder"},
			tool: "grep", args: `{}`, want: "reject:allowed_tools", msg: `pattern "code" does not allow tool "grep"`},
		{name: "run_start pattern beats the agent's", run: run{ws: ws, agent: "coder", pattern: "open"},
			tool: "grep", args: `{}`, want: "allow"},
		{name: "default for runs with neither", run: run{ws: ws, agent: "other"},
			tool: "grep", args: `{"path":"docs/x"}`, want: "allow"},
	})
	p := testPolicy()
	p.Default = ""
	runCases(t, p, []callCase{
		{name: "no pattern: global rules only (read)", run: run{ws: ws}, tool: "anything", args: `{"path":"x/y"}`, want: "allow"},
		{name: "no pattern: global rules only (protected)", run: run{ws: ws}, tool: "write_file", args: `{"path":".git/HEAD"}`, want: "reject:protected_path"},
		{name: "no pattern: test edits are advised", run: run{ws: ws}, tool: "edit_file", args: `{"path":"a_test.go"}`, want: "advise:test_edit allow"},
	})
	p.RequirePattern = true
	runCases(t, p, []callCase{
		{name: "a required pattern missing", run: run{ws: ws}, tool: "read_file", args: `{"path":"a"}`, want: "reject:pattern",
			msg: "the run names no pattern and the policy requires one"},
	})
}

func TestAllowedTools(t *testing.T) {
	runCases(t, testPolicy(), []callCase{
		{name: "listed", run: code, tool: "read_file", args: `{"path":"src/a.go"}`, want: "allow"},
		{name: "not listed", run: code, tool: "web_fetch", args: `{"url":"https://x"}`, want: "reject:allowed_tools",
			msg: `pattern "code" does not allow tool "web_fetch"; allowed tools: read_file, write_file, edit_file, apply_patch, delete_file, list_dir, bash`},
		{name: "empty list allows any", run: open, tool: "web_fetch", args: `{"url":"https://x"}`, want: "allow"},
	})
}

func TestPathScope(t *testing.T) {
	runCases(t, testPolicy(), []callCase{
		{name: "inside include", run: code, tool: "read_file", args: `{"path":"src/a.go"}`, want: "allow"},
		{name: "a literal include", run: code, tool: "edit_file", args: `{"path":"go.mod"}`, want: "allow"},
		{name: "outside include", run: code, tool: "read_file", args: `{"path":"docs/x.md"}`, want: "reject:path_scope",
			msg: `read_file names "docs/x.md", which is outside the scope of pattern "code" (path_scope.include: src/**, tests/**, go.mod)`},
		{name: "exclude wins over include", run: code, tool: "read_file", args: `{"path":"src/secrets/key"}`, want: "reject:path_scope",
			msg: `pattern "code" excludes (path_scope.exclude src/secrets/**)`},
		{name: "exclude anywhere", run: code, tool: "read_file", args: `{"path":"src/x/cert.pem"}`, want: "reject:path_scope"},
		{name: "the path field", run: code, tool: "read_file", path: "docs/x.md", want: "reject:path_scope"},
		{name: "every path key", run: code, tool: "edit_file", args: `{"file_path":"src/a.go","target":"docs/b"}`, want: "reject:path_scope"},
		{name: "arrays of paths", run: code, tool: "read_file", args: `{"paths":["src/a.go","docs/b"]}`, want: "reject:path_scope"},
		{name: "nested edits", run: code, tool: "edit_file", args: `{"edits":[{"path":"src/a.go"},{"path":"docs/b"}]}`, want: "reject:path_scope"},
		{name: "non-path keys are ignored", run: code, tool: "edit_file", args: `{"path":"src/a.go","old":"docs/b","n":1,"ok":true,"x":null}`, want: "allow"},
		{name: "escaped JSON strings are decoded", run: code, tool: "read_file", args: `{"path":"\u0064ocs/x"}`, want: "reject:path_scope"},
		{name: "URLs under path keys are not paths", run: open, tool: "download", args: `{"source":"https://example.com/a","destination":"b"}`, want: "allow"},
	})
}

func TestPathNormalisation(t *testing.T) {
	runCases(t, testPolicy(), []callCase{
		{name: "absolute inside the workspace becomes relative", run: code, tool: "read_file", args: `{"path":"` + ws + `/src/a.go"}`, want: "allow"},
		{name: "the root itself is .", run: code, tool: "list_dir", args: `{"path":"` + ws + `"}`, want: "reject:path_scope", msg: `names "."`},
		{name: "dots and duplicate slashes are cleaned", run: code, tool: "read_file", args: `{"path":"./src//x/../a.go"}`, want: "allow"},
		{name: "cleaning applies before exclude", run: code, tool: "read_file", args: `{"path":"src/x/../secrets/k"}`, want: "reject:path_scope", msg: "excludes"},
		{name: "absolute outside the workspace escapes", run: open, tool: "read_file", args: `{"path":"/etc/passwd"}`, want: "reject:path_scope",
			msg: `read_file names "/etc/passwd", which escapes the workspace (/home/dev/proj)`},
		{name: "a sibling with the root as prefix escapes", run: open, tool: "read_file", args: `{"path":"/home/dev/project2/a"}`, want: "reject:path_scope"},
		{name: ".. climbing out escapes", run: open, tool: "read_file", args: `{"path":"../../etc/passwd"}`, want: "reject:path_scope"},
		{name: "climbing out after going in escapes", run: open, tool: "read_file", args: `{"path":"src/../../x"}`, want: "reject:path_scope"},
		{name: "absolute with .. escapes", run: open, tool: "read_file", args: `{"path":"` + ws + `/../x"}`, want: "reject:path_scope"},
		{name: "home escapes", run: open, tool: "read_file", args: `{"path":"~/.ssh/id_rsa"}`, want: "reject:path_scope"},
		{name: "$HOME escapes", run: open, tool: "read_file", args: `{"path":"$HOME/.aws/credentials"}`, want: "reject:path_scope"},
		{name: "a drive path under a POSIX root escapes", run: open, tool: "read_file", args: `{"path":"C:\\Windows\\x"}`, want: "reject:path_scope"},
		{name: "a POSIX backslash is a file name character", run: open, tool: "read_file", args: `{"path":"a\\..\\..\\b"}`, want: "allow"},
		{name: "without ws, absolute paths are checked as given", run: run{pattern: "code"}, tool: "read_file", args: `{"path":"/abs/src/a.go"}`, want: "reject:path_scope", msg: "outside the scope"},
		{name: "without ws, relative paths still cannot climb", run: run{pattern: "open"}, tool: "read_file", args: `{"path":"../x"}`, want: "reject:path_scope"},
		{name: "without ws, absolute outside paths are fine", run: run{pattern: "open"}, tool: "read_file", args: `{"path":"/etc/hosts"}`, want: "allow"},
		// Windows workspaces: backslashes are separators, case does not matter.
		{name: "windows: inside", run: run{ws: `C:\work\proj`, pattern: "code"}, tool: "read_file", args: `{"path":"C:\\work\\proj\\src\\a.go"}`, want: "allow"},
		{name: "windows: case-insensitive root", run: run{ws: `C:\work\proj`, pattern: "code"}, tool: "read_file", args: `{"path":"c:/WORK/Proj/src/a.go"}`, want: "allow"},
		{name: "windows: relative with backslashes", run: run{ws: `C:\work\proj`, pattern: "code"}, tool: "read_file", args: `{"path":"src\\a.go"}`, want: "allow"},
		{name: "windows: .. escapes", run: run{ws: `C:\work\proj`, pattern: "open"}, tool: "read_file", args: `{"path":"..\\..\\secret"}`, want: "reject:path_scope"},
		{name: "windows: another drive escapes", run: run{ws: `C:\work\proj`, pattern: "open"}, tool: "read_file", args: `{"path":"D:\\x"}`, want: "reject:path_scope"},
		{name: "windows: UNC escapes", run: run{ws: `C:\work\proj`, pattern: "open"}, tool: "read_file", args: `{"path":"\\\\server\\share\\x"}`, want: "reject:path_scope"},
	})
}

func TestProtectedPaths(t *testing.T) {
	git := run{ws: ws, pattern: "git"}
	runCases(t, testPolicy(), []callCase{
		{name: "write to HEAD", run: open, tool: "write_file", args: `{"path":".git/HEAD"}`, want: "reject:protected_path",
			msg: `write_file writes ".git/HEAD", which is protected (.git/HEAD) and never writable`},
		{name: "protected wins over a pattern that includes it", run: git, tool: "edit_file", args: `{"path":".git/config"}`, want: "reject:protected_path"},
		{name: "objects", run: git, tool: "write_file", args: `{"path":".git/objects/ab/cdef"}`, want: "reject:protected_path"},
		{name: "refs, absolute", run: git, tool: "write_file", args: `{"path":"` + ws + `/.git/refs/heads/main"}`, want: "reject:protected_path"},
		{name: "reading is fine", run: git, tool: "read_file", args: `{"path":".git/HEAD"}`, want: "allow"},
		{name: "unprotected .git paths are the pattern's business", run: git, tool: "write_file", args: `{"path":".git/info/exclude"}`, want: "allow"},
		{name: "hooks run code: protected", run: git, tool: "write_file", args: `{"path":".git/hooks/pre-commit"}`, want: "reject:protected_path"},
		{name: "a hook written by the shell", run: git, tool: "bash", args: `{"command":"cp /tmp/h .git/hooks/post-checkout && chmod +x .git/hooks/post-checkout"}`, want: "reject:protected_path"},
		{name: "git config of a program git runs writes .git/config", run: git, tool: "bash", args: `{"command":"git config core.hooksPath /tmp/hooks"}`, want: "reject:protected_path",
			msg: `bash writes ".git/config", which is protected (.git/config) and never writable in ` + "`git config core.hooksPath /tmp/hooks`"},
		{name: "git config of a filter", run: git, tool: "bash", args: `{"command":"git config --local filter.x.smudge 'sh evil.sh'"}`, want: "reject:protected_path"},
		{name: "git config of a name is not", run: git, tool: "bash", args: `{"command":"git config user.email agent@example.com"}`, want: "allow"},
		{name: "git config reads are not", run: git, tool: "bash", args: `{"command":"git config --get core.hooksPath"}`, want: "allow"},
		{name: "global git config is not the repository's", run: git, tool: "bash", args: `{"command":"git config --global core.pager cat"}`, want: "allow"},
		{name: "deleting a directory that holds protected paths", run: git, tool: "delete_file", args: `{"path":".git"}`, want: "reject:protected_path"},
		{name: "shell redirect", run: git, tool: "bash", args: `{"command":"echo ref > .git/HEAD"}`, want: "reject:protected_path", msg: "in `echo ref > .git/HEAD`"},
		{name: "shell rm -rf .git", run: git, tool: "bash", args: `{"command":"rm -rf .git"}`, want: "reject:protected_path"},
		{name: "shell mv .git", run: git, tool: "bash", args: `{"command":"mv .git /tmp/x"}`, want: "reject:protected_path"},
		{name: "shell absolute path", run: git, tool: "bash", args: `{"command":"sed -i s/a/b/ ` + ws + `/.git/config"}`, want: "reject:protected_path"},
		{name: "git itself may write its objects", run: git, tool: "bash", args: `{"command":"git add -A && git commit -m wip"}`, want: "allow"},
		{name: "without ws, protected globs match at any depth", run: run{pattern: "open"}, tool: "write_file", args: `{"path":"/repo/.git/HEAD"}`, want: "reject:protected_path"},
	})
}

func TestPatches(t *testing.T) {
	patch := func(body string) string {
		return fmt.Sprintf(`{"input":%q}`, "*** Begin Patch\n"+body+"\n*** End Patch")
	}
	diff := func(from, to string) string {
		return fmt.Sprintf(`{"patch":%q}`, "--- "+from+"\n+++ "+to+"\n@@ -1 +1 @@\n-a\n+b\n")
	}
	git := run{ws: ws, pattern: "git"}
	runCases(t, testPolicy(), []callCase{
		{name: "a patch inside the scope", run: code, tool: "apply_patch", args: patch("*** Update File: src/a.go\n@@\n-a\n+b"), want: "allow"},
		{name: "a patch outside the scope", run: code, tool: "apply_patch", args: patch("*** Add File: docs/x.md\n+x"), want: "reject:path_scope", msg: `apply_patch writes "docs/x.md"`},
		{name: "a patch escaping the workspace", run: open, tool: "apply_patch", args: patch("*** Update File: ../../etc/hosts"), want: "reject:path_scope"},
		{name: "a patch to a protected path", run: git, tool: "apply_patch", args: patch("*** Update File: .git/config"), want: "reject:protected_path"},
		{name: "a unified diff to a protected path", run: git, tool: "apply_patch", args: diff("a/.git/HEAD", "b/.git/HEAD"), want: "reject:protected_path"},
		{name: "a diff that deletes a test", run: code, tool: "apply_patch", args: diff("a/src/x_test.go", "/dev/null"), want: "reject:forbidden_operation", msg: "forbids delete_tests"},
		{name: "a patch that deletes a file", run: run{ws: ws, pattern: "nops"}, tool: "apply_patch", args: patch("*** Delete File: a.go"), want: "reject:forbidden_operation", msg: "forbids delete_files"},
		{name: "a patch to a test", run: code, tool: "apply_patch", args: patch("*** Update File: src/x_test.go"), want: "advise:test_edit allow"},
		{name: "patch keys of other tools are not read", run: open, tool: "read_file", args: patch("*** Update File: .git/HEAD"), want: "allow"},
	})
}

func TestForbiddenOperations(t *testing.T) {
	nops := run{ws: ws, pattern: "nops"}
	runCases(t, testPolicy(), []callCase{
		{name: "git_push by shell", run: nops, tool: "bash", args: `{"command":"git push origin main"}`, want: "reject:forbidden_operation",
			msg: "pattern \"nops\" forbids git_push: bash runs `git push origin main`"},
		{name: "git_push by tool", run: nops, tool: "git_push", args: `{"remote":"origin"}`, want: "reject:forbidden_operation", msg: "forbids git_push: tool git_push performs it"},
		{name: "force_push is refused globally first", run: nops, tool: "bash", args: `{"command":"git push -f"}`, want: "reject:shell"},
		{name: "delete_files by shell", run: nops, tool: "bash", args: `{"command":"rm a.txt"}`, want: "reject:forbidden_operation", msg: "forbids delete_files"},
		{name: "delete_files by tool", run: nops, tool: "delete_file", args: `{"path":"a.txt"}`, want: "reject:forbidden_operation", msg: "forbids delete_files"},
		{name: "delete_tests by shell", run: nops, tool: "bash", args: `{"command":"rm src/a_test.go"}`, want: "reject:forbidden_operation",
			msg: `forbids delete_tests: bash deletes the test file "src/a_test.go"`},
		{name: "delete_tests by tool", run: nops, tool: "delete_file", args: `{"path":"tests/test_x.py"}`, want: "reject:forbidden_operation", msg: "forbids delete_tests"},
		{name: "network by shell", run: nops, tool: "bash", args: `{"command":"curl -s https://example.com"}`, want: "reject:forbidden_operation", msg: "forbids network"},
		{name: "network by tool", run: nops, tool: "web_fetch", args: `{"url":"https://example.com"}`, want: "reject:forbidden_operation", msg: "forbids network"},
		{name: "package_install by shell", run: nops, tool: "bash", args: `{"command":"pip install requests"}`, want: "reject:forbidden_operation", msg: "forbids package_install"},
		{name: "package_install by tool", run: nops, tool: "install_package", args: `{"name":"x"}`, want: "reject:forbidden_operation", msg: "forbids package_install"},
		{name: "sudo", run: nops, tool: "bash", args: `{"command":"sudo ls /root"}`, want: "reject:forbidden_operation", msg: "forbids sudo"},
		{name: "none of them", run: nops, tool: "bash", args: `{"command":"go test ./... && git status"}`, want: "allow"},
		{name: "a quoted mention is not an operation", run: nops, tool: "bash", args: `{"command":"echo 'git push; rm x; curl y'"}`, want: "allow"},
		// The code pattern forbids git_push and delete_tests only.
		{name: "delete_tests only: deleting code is fine", run: code, tool: "bash", args: `{"command":"rm src/old.go"}`, want: "allow"},
		{name: "delete_tests only: deleting a test is not", run: code, tool: "delete_file", args: `{"path":"src/a_test.go"}`, want: "reject:forbidden_operation"},
		{name: "not forbidden elsewhere", run: open, tool: "bash", args: `{"command":"git push origin main"}`, want: "allow"},
	})
}

func TestShell(t *testing.T) {
	var tests []callCase
	for _, cmd := range []string{
		"rm -rf /", "rm -rf /*", "rm -rf ~", "rm -rf $HOME", "rm -rf " + ws, "rm -rf .", "sudo rm -rf /",
		"cd / && rm -rf *", "mkfs.ext4 /dev/sda1", "dd if=/dev/zero of=/dev/sda", "dd if=x of=/dev/nvme0n1",
		"echo x > /dev/sda", ":(){ :|:& };:", "git push --force", "git push -f origin main",
		"git push --force-with-lease", "chmod -R 777 /", `bash -c "rm -rf /"`, "make && rm -rf ~/",
	} {
		tests = append(tests, callCase{name: cmd, run: open, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd), want: "reject:shell"})
	}
	for _, cmd := range []string{
		"rm -rf ./build", "rm -rf build/", "rm -r tmp/x", "git push", "git push origin main",
		"dd if=a of=b.img", `echo "rm -rf /"`, "grep mkfs notes.md", "echo hi > /dev/null",
	} {
		tests = append(tests, callCase{name: "near miss: " + cmd, run: open, tool: "bash", args: fmt.Sprintf(`{"command":%q}`, cmd), want: "allow"})
	}
	tests = append(tests,
		callCase{name: "message", run: open, tool: "bash", args: `{"command":"rm -rf /"}`, want: "reject:shell",
			msg: "destructive shell command refused (recursive_delete): `rm -rf /` would destroy the root file system"},
		callCase{name: "argv form", run: open, tool: "run_command", args: `{"cmd":["rm","-rf","/"]}`, want: "reject:shell"},
		callCase{name: "argv form, harmless", run: open, tool: "run_command", args: `{"cmd":["echo","rm -rf /"]}`, want: "allow"},
		callCase{name: "script key", run: open, tool: "exec", args: `{"script":"mkfs /dev/sdb"}`, want: "reject:shell"},
		callCase{name: "not a shell tool", run: open, tool: "python", args: `{"command":"rm -rf /"}`, want: "allow"},
		callCase{name: "unreadable arguments of a shell tool", run: open, tool: "bash", args: `{"command": "rm -rf /"`, want: "reject:args"},
		callCase{name: "unreadable arguments of a write tool", run: open, tool: "write_file", args: `{path: x}`, want: "reject:args"},
		callCase{name: "unreadable arguments of another tool are its schema's business", run: open, tool: "read_file", args: `{not json`, want: "allow"},
		callCase{name: "path escape is advised", run: open, tool: "bash", args: `{"command":"cat /etc/passwd ~/.netrc"}`, want: "advise:path_escape allow",
			msg: "the bash command reaches outside the workspace: /etc/passwd and 1 more"},
		callCase{name: "climbing out is advised", run: open, tool: "bash", args: `{"command":"ls ../.."}`, want: "advise:path_escape allow"},
		callCase{name: "safe paths are not", run: open, tool: "bash", args: `{"command":"go test ./... > /tmp/log 2>/dev/null"}`, want: "allow"},
		callCase{name: "paths inside the workspace are not", run: open, tool: "bash", args: `{"command":"cat ` + ws + `/src/a.go"}`, want: "allow"},
		callCase{name: "no workspace, no escape", run: run{pattern: "open"}, tool: "bash", args: `{"command":"cat /etc/passwd"}`, want: "allow"},
		callCase{name: "shell writes respect the pattern's scope", run: code, tool: "bash", args: `{"command":"echo x > docs/a.md"}`, want: "reject:path_scope"},
		callCase{name: "shell writes inside the scope", run: code, tool: "bash", args: `{"command":"gofmt -w src/a.go > src/out.txt"}`, want: "allow"},
	)
	runCases(t, testPolicy(), tests)

	p := testPolicy()
	p.Shell.Destructive, p.Shell.PathEscape = false, false
	runCases(t, p, []callCase{
		{name: "destructive off", run: open, tool: "bash", args: `{"command":"rm -rf /"}`, want: "allow"},
		{name: "path escape off", run: open, tool: "bash", args: `{"command":"cat /etc/passwd"}`, want: "allow"},
	})
}

func TestTestEdits(t *testing.T) {
	strict, allow := run{ws: ws, pattern: "strict"}, run{ws: ws, pattern: "tests"}
	runCases(t, testPolicy(), []callCase{
		{name: "advisory: Go", run: code, tool: "edit_file", args: `{"path":"src/a_test.go"}`, want: "advise:test_edit allow",
			msg: `edit_file writes the test file "src/a_test.go": make sure the test, not the code, is what needs to change`},
		{name: "advisory: Python", run: code, tool: "write_file", args: `{"path":"tests/test_api.py"}`, want: "advise:test_edit allow"},
		{name: "advisory: TypeScript", run: open, tool: "write_file", args: `{"path":"web/src/Button.test.tsx"}`, want: "advise:test_edit allow"},
		{name: "advisory: spec.js", run: open, tool: "write_file", args: `{"path":"a.spec.js"}`, want: "advise:test_edit allow"},
		{name: "advisory: __tests__", run: open, tool: "write_file", args: `{"path":"web/__tests__/x.js"}`, want: "advise:test_edit allow"},
		{name: "advisory: by shell", run: open, tool: "bash", args: `{"command":"sed -i s/1/2/ pkg/x_test.go"}`, want: "advise:test_edit allow"},
		{name: "reading a test is not editing", run: code, tool: "read_file", args: `{"path":"src/a_test.go"}`, want: "allow"},
		{name: "not a test", run: open, tool: "write_file", args: `{"path":"src/testing.go"}`, want: "allow"},
		{name: "strict", run: strict, tool: "edit_file", args: `{"path":"src/a_test.go"}`, want: "reject:test_edit",
			msg: `pattern "strict" forbids editing test files: edit_file writes "src/a_test.go"`},
		{name: "strict by shell", run: strict, tool: "bash", args: `{"command":"echo x >> tests/test_a.py"}`, want: "reject:test_edit"},
		{name: "allow", run: allow, tool: "edit_file", args: `{"path":"src/a_test.go"}`, want: "allow"},
	})
}

// changes is a result reporting changes.
func changes(h *processortest.History, files, lines, hunks int64, paths ...string) {
	h.Call("edit_file", `{"path":"src/a.go"}`)
	h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", h.Seq()/2), Changes: &event.Changes{Files: files, Lines: lines, Hunks: hunks, Paths: paths}})
}

func TestMaxChanges(t *testing.T) {
	tests := []struct {
		name    string
		history func(h *processortest.History)
		want    string // the decisions of the last event
		counts  string
	}{
		{"distinct paths: the fourth file stops", func(h *processortest.History) {
			changes(h, 1, 1, 1, "src/a.go")
			changes(h, 2, 1, 1, "src/a.go", "src/b.go")
			changes(h, 1, 1, 1, ws+"/src/b.go") // the same file, absolute
			changes(h, 1, 1, 1, "./src/c.go")
			changes(h, 1, 1, 1, "src/d.go")
		}, "stop:max_changes", "files=4 lines=5 hunks=5 max_files=3"},
		{"repeats are not new files", func(h *processortest.History) {
			for range 4 {
				changes(h, 1, 1, 1, "src/a.go")
			}
		}, "", ""},
		{"results without paths count their files", func(h *processortest.History) {
			changes(h, 2, 1, 1)
			changes(h, 2, 1, 1)
		}, "stop:max_changes", "files=4 lines=2 hunks=2 max_files=3"},
		{"lines", func(h *processortest.History) {
			changes(h, 1, 60, 1, "src/a.go")
			changes(h, 1, 41, 1, "src/a.go")
		}, "stop:max_changes", "files=1 lines=101 hunks=2 max_lines=100"},
		{"hunks", func(h *processortest.History) {
			changes(h, 1, 1, 5, "src/a.go")
			changes(h, 1, 1, 1, "src/a.go")
		}, "stop:max_changes", "files=1 lines=2 hunks=6 max_hunks=5"},
		{"at the limit is fine", func(h *processortest.History) {
			changes(h, 3, 100, 5, "src/a.go", "src/b.go", "src/c.go")
		}, "", ""},
		{"a protected path changed stops the run", func(h *processortest.History) {
			changes(h, 1, 1, 1, ".git/HEAD")
		}, "stop:protected_path", "files=1 lines=1 hunks=1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := processors.NewChain(policy.New(testPolicy()))
			st := c.NewRun()
			h := processortest.NewHistory("acme", "r")
			h.Events()[0].Workspace, h.Events()[0].Pattern = ws, "code"
			tt.history(h)
			var out processors.Out
			evs := h.Events()
			for i := range evs {
				c.Apply(st, &evs[i], &out)
				if i < len(evs)-1 && out.Stopped() != nil {
					t.Fatalf("stopped early at #%d: %s", evs[i].Seq, processortest.String(out.Stopped()))
				}
			}
			got := summary(out.Decisions)
			if got != tt.want {
				t.Fatalf("last result: got %q, want %q", got, tt.want)
			}
			if s := out.Stopped(); s != nil {
				var counts []string
				for _, ct := range s.Counts {
					counts = append(counts, fmt.Sprintf("%s=%d", ct.Name, ct.Value))
				}
				if strings.Join(counts, " ") != tt.counts || s.Outcome != event.StatusFailed || s.Reason != event.ReasonPolicyViolation {
					t.Errorf("stop %s: counters %q, want %q", processortest.String(s), counts, tt.counts)
				}
			}
		})
	}
}

func TestChangedPathsAreCapped(t *testing.T) {
	p := testPolicy()
	p.Patterns["code"] = policy.Pattern{MaxChanges: policy.MaxChanges{Files: policy.MaxPaths}}
	e := policy.New(p)
	c := processors.NewChain(e)
	st := c.NewRun()
	h := processortest.NewHistory("acme", "r")
	h.Events()[0].Workspace, h.Events()[0].Pattern = ws, "code"
	for i := range policy.MaxPaths + 1 {
		changes(h, 1, 1, 1, fmt.Sprintf("f%03d", i))
	}
	var out processors.Out
	for _, ev := range h.Events() {
		c.Apply(st, &ev, &out)
	}
	if got := summary(out.Decisions); got != "stop:max_changes" {
		t.Errorf("file %d: got %q, want a stop", policy.MaxPaths+1, got)
	}
	s := st.Parts[0].(*policy.State)
	if len(s.Paths) != policy.MaxPaths || s.Files() != policy.MaxPaths+1 {
		t.Errorf("state keeps %d paths and counts %d files; want %d and %d", len(s.Paths), s.Files(), policy.MaxPaths, policy.MaxPaths+1)
	}
}

func TestValidate(t *testing.T) {
	if err := policy.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	if err := testPolicy().Validate(); err != nil {
		t.Fatalf("test policy: %v", err)
	}
	bad := map[string]func(*policy.Policy){
		"bad protected glob": func(p *policy.Policy) { p.Protected = []string{"[a"} },
		"bad include": func(p *policy.Policy) {
			p.Patterns["x"] = policy.Pattern{PathScope: policy.PathScope{Include: []string{"a/[b"}}}
		},
		"unknown operation": func(p *policy.Policy) {
			p.Patterns["x"] = policy.Pattern{ForbiddenOperations: []policy.Operation{"launch_missiles"}}
		},
		"negative limit": func(p *policy.Policy) { p.Patterns["x"] = policy.Pattern{MaxChanges: policy.MaxChanges{Lines: -1}} },
		"too many files": func(p *policy.Policy) {
			p.Patterns["x"] = policy.Pattern{MaxChanges: policy.MaxChanges{Files: policy.MaxPaths + 1}}
		},
		"bad test_edits":        func(p *policy.Policy) { p.Patterns["x"] = policy.Pattern{TestEdits: "sometimes"} },
		"agent to unknown":      func(p *policy.Policy) { p.Agents["a"] = "nope" },
		"unknown default":       func(p *policy.Policy) { p.Default = "nope" },
		"empty id":              func(p *policy.Policy) { p.Patterns[""] = policy.Pattern{} },
		"unknown operation key": func(p *policy.Policy) { p.OperationTools["teleport"] = []string{"t"} },
		"brace explosion":       func(p *policy.Policy) { p.TestGlobs = []string{"{a,b}{c,d}{e,f}{g,h}{i,j}{k,l}{m,n}"} },
	}
	for name, mod := range bad {
		p := testPolicy()
		mod(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}
