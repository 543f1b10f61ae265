package policy

import (
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/guardstream/guardstream/internal/workspace"
)

// Policy is the policy guard's configuration: the patterns runs act under,
// and the global rules that hold whatever the pattern. Its JSON (or YAML)
// form is the "policy" section of the guard's policy file.
type Policy struct {
	// Patterns maps a pattern id to its rules.
	Patterns map[string]Pattern `json:"patterns,omitempty"`
	// Agents maps an agent class (run_start "agent") to the pattern id its
	// runs act under when run_start names none.
	Agents map[string]string `json:"agents,omitempty"`
	// Default is the pattern id of runs that name none and whose agent
	// class has none; empty: such runs are checked against the global
	// rules only.
	Default string `json:"default,omitempty"`
	// RequirePattern refuses every call of a run that has no pattern, as
	// it refuses those of a run whose pattern is unknown.
	RequirePattern bool `json:"require_pattern,omitempty"`

	// Protected are globs of workspace paths no call may write, whatever
	// the pattern.
	Protected []string `json:"protected"`
	// Shell says what is done about shell commands.
	Shell Shell `json:"shell"`
	// TestGlobs are globs of test files, for Pattern.TestEdits and the
	// delete_tests operation.
	TestGlobs []string `json:"test_globs"`

	// Vocabulary says which argument keys hold paths and patches, which
	// tools write files and which run shell commands. It is shared with
	// the antipattern guard, so the policy document sets it once, at its
	// top (guard.Policy.Tools).
	Vocabulary workspace.Vocabulary `json:"-"`
	// OperationTools lists, per operation, the tools whose every call
	// performs it, such as git_push for the git_push operation. Shell
	// commands are recognised by the shell classifier.
	OperationTools map[Operation][]string `json:"operation_tools"`
}

// Pattern is what a run acting under it may do.
type Pattern struct {
	// AllowedTools are the tools the run may call; empty: any.
	AllowedTools []string `json:"allowed_tools,omitempty"`
	// PathScope says which workspace paths the run's calls may name.
	PathScope PathScope `json:"path_scope"`
	// ForbiddenOperations are refused.
	ForbiddenOperations []Operation `json:"forbidden_operations,omitempty"`
	// MaxChanges bounds what the run's results report changed.
	MaxChanges MaxChanges `json:"max_changes"`
	// TestEdits says what is done about a call that writes a test file.
	TestEdits TestEdits `json:"test_edits,omitempty"`
}

// PathScope bounds the paths of a pattern's calls. A path must match an
// Include glob (when there are any) and no Exclude glob: Exclude wins.
type PathScope struct {
	Include []string `json:"include,omitempty"`
	Exclude []string `json:"exclude,omitempty"`
}

// MaxChanges bounds the changes a run's results report, summed over the
// run. 0 turns a bound off.
type MaxChanges struct {
	// Files counts distinct changed paths (results' chg.paths), plus the
	// chg.files count of results that list no paths. At most MaxPaths.
	Files int64 `json:"files,omitempty"`
	Lines int64 `json:"lines,omitempty"`
	Hunks int64 `json:"hunks,omitempty"`
}

// TestEdits says what is done about a call that writes a test file.
type TestEdits string

// Test-edit modes.
const (
	// TestEditsAdvisory allows the call and advises test_edit. The
	// default.
	TestEditsAdvisory TestEdits = "advisory"
	// TestEditsStrict refuses the call (rule test_edit).
	TestEditsStrict TestEdits = "strict"
	// TestEditsAllow lets the call through without a word.
	TestEditsAllow TestEdits = "allow"
)

// Shell says what is done about shell commands.
type Shell struct {
	// Destructive refuses destructive commands (rule shell); see package
	// shell for the list. On by default.
	Destructive bool `json:"destructive"`
	// PathEscape advises path_escape when a command names a path outside
	// the workspace; the call is allowed. On by default.
	PathEscape bool `json:"path_escape"`
	// SafePaths are globs of absolute paths outside the workspace that are
	// not worth an advice, such as /dev/null and /tmp/**.
	SafePaths []string `json:"safe_paths"`
}

// Operation names something a pattern may forbid. The set is closed.
type Operation string

// Operations.
const (
	// OpGitPush: git push, forced or not, or a tool listed for it.
	OpGitPush Operation = "git_push"
	// OpForcePush: git push --force, -f, --force-with-lease or +refspec
	// (also refused globally as a destructive command).
	OpForcePush Operation = "force_push"
	// OpDeleteFiles: a delete tool, or rm, rmdir, unlink, shred, git rm,
	// git clean, find -delete.
	OpDeleteFiles Operation = "delete_files"
	// OpDeleteTests: a deletion whose target matches TestGlobs.
	OpDeleteTests Operation = "delete_tests"
	// OpNetwork: a network tool, or curl, wget, ssh, scp, nc, rsync to a
	// host, git clone/fetch/pull/push, and package installs.
	OpNetwork Operation = "network"
	// OpPackageInstall: a package-install tool, or pip/npm/yarn/pnpm/go/
	// apt/brew/cargo/gem/... install or add.
	OpPackageInstall Operation = "package_install"
	// OpSudo: sudo, doas, su, pkexec.
	OpSudo Operation = "sudo"
)

// Operations returns every operation, the more specific first: a call that
// performs several forbidden ones is refused naming the first.
func Operations() []Operation { return slices.Clone(operations[:]) }

var operations = [...]Operation{OpForcePush, OpGitPush, OpDeleteTests, OpDeleteFiles, OpPackageInstall, OpNetwork, OpSudo}

// MaxPaths is how many distinct changed paths a run's state remembers,
// and so the largest MaxChanges.Files. A changed path beyond it is counted
// as a new file without being remembered, so a run that changes the same
// files again after the cap over-counts; since a Files limit stops the run
// as soon as the count passes it, the count is exact up to any limit a
// policy can set.
const MaxPaths = 256

// DefaultPolicy returns the defaults: no patterns, .git internals
// protected, destructive shell commands refused and workspace escapes
// advised, test files of Go, Python and JavaScript/TypeScript, and the
// tool vocabularies of common agent frameworks.
func DefaultPolicy() Policy {
	return Policy{
		Protected: []string{".git/objects/**", ".git/refs/**", ".git/HEAD", ".git/config", ".git/hooks/**"},
		Shell: Shell{
			Destructive: true,
			PathEscape:  true,
			SafePaths: []string{
				"/dev/null", "/dev/stdin", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero",
				"/dev/random", "/dev/urandom", "/dev/fd/**", "/tmp", "/tmp/**",
			},
		},
		TestGlobs: []string{
			"**/*_test.go", "**/testdata/**",
			"**/test_*.py", "**/*_test.py", "**/conftest.py",
			"**/*.{test,spec}.{js,jsx,ts,tsx,mjs,cjs,mts,cts}",
			"**/tests/**", "**/test/**", "**/__tests__/**",
		},
		Vocabulary: workspace.DefaultVocabulary(),
		OperationTools: map[Operation][]string{
			OpGitPush:        {"git_push"},
			OpDeleteFiles:    {"delete_file", "delete_files", "remove_file", "delete_directory", "delete", "rm"},
			OpNetwork:        {"web_fetch", "fetch", "fetch_url", "http_request", "http_get", "web_search", "browse", "browser", "curl", "wget", "download"},
			OpPackageInstall: {"install_package", "pip_install", "npm_install"},
		},
	}
}

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("policy."+format, args...)) }
	globs := func(field string, gs []string) {
		for _, g := range gs {
			if _, err := compileGlobs([]string{g}); err != nil {
				bad("%s: %v", field, err)
			}
		}
	}
	globs("protected", p.Protected)
	globs("test_globs", p.TestGlobs)
	globs("shell.safe_paths", p.Shell.SafePaths)
	for _, id := range sortedKeys(p.Patterns) {
		pat := p.Patterns[id]
		if id == "" {
			bad("patterns: a pattern id is empty")
		}
		globs("patterns."+id+".path_scope.include", pat.PathScope.Include)
		globs("patterns."+id+".path_scope.exclude", pat.PathScope.Exclude)
		for _, op := range pat.ForbiddenOperations {
			if !slices.Contains(operations[:], op) {
				bad("patterns.%s.forbidden_operations: %q is not an operation; want one of %v", id, op, Operations())
			}
		}
		m := pat.MaxChanges
		if m.Files < 0 || m.Lines < 0 || m.Hunks < 0 {
			bad("patterns.%s.max_changes: limits must be 0 (off) or more", id)
		}
		if m.Files > MaxPaths {
			bad("patterns.%s.max_changes.files is %d; the most is %d", id, m.Files, MaxPaths)
		}
		switch pat.TestEdits {
		case "", TestEditsAdvisory, TestEditsStrict, TestEditsAllow:
		default:
			bad("patterns.%s.test_edits is %q; want %q, %q or %q", id, pat.TestEdits, TestEditsAdvisory, TestEditsStrict, TestEditsAllow)
		}
	}
	for _, agent := range sortedKeys(p.Agents) {
		if _, ok := p.Patterns[p.Agents[agent]]; !ok {
			bad("agents.%s names pattern %q, which is not defined", agent, p.Agents[agent])
		}
	}
	if _, ok := p.Patterns[p.Default]; p.Default != "" && !ok {
		bad("default names pattern %q, which is not defined", p.Default)
	}
	for _, op := range sortedKeys(p.OperationTools) {
		if !slices.Contains(operations[:], op) {
			bad("operation_tools: %q is not an operation; want one of %v", op, Operations())
		}
	}
	return errors.Join(errs...)
}

func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	return keys
}
