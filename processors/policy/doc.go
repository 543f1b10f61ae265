// Package policy is the tool and path policy guard: it checks every tool
// call against the pattern its run acts under and against global rules,
// and every result against the pattern's change limits.
//
// # Patterns
//
// A run acts under the pattern named by its run start ("pattern"), else
// the one Policy.Agents gives its agent class, else Policy.Default. A
// pattern id the policy does not define makes every call of the run a
// reject (rule "pattern") naming the defined ones; so does a run without a
// pattern when Policy.RequirePattern is set. A run without a pattern is
// otherwise held to the global rules alone.
//
// # Rules
//
// Every refusal is a reject with reason POLICY_VIOLATION; Decision.Rule
// names the rule, and the message names the tool, path or pattern. A call
// is checked in this order, and the first rule it breaks refuses it:
//
//   - pattern: the run's pattern is unknown (or missing and required).
//   - allowed_tools: the tool is not in the pattern's allowed_tools.
//   - path_scope, protected_path: each path of the call (its "path" field,
//     the strings under the policy's path_keys in its arguments, and, for a
//     write tool, the files named by a patch under its patch_keys; see
//     package workspace), normalised relative to the workspace. A path that
//     escapes the workspace is refused (path_scope); a write to a protected
//     path, or to a directory holding one, is refused (protected_path)
//     whatever the pattern allows; a path inside an exclude glob, or outside
//     every include glob, is refused (path_scope).
//   - args: the arguments of a write or shell tool are not a JSON object,
//     so the guard cannot see what the call touches.
//   - shell: a shell tool's command is destructive (see package shell).
//   - protected_path, path_scope: a path the shell command writes, as for
//     the call's own paths; a written path outside the workspace is advised
//     (below), not refused.
//   - forbidden_operation: the call performs an operation the pattern
//     forbids, recognised from the tool name (Policy.OperationTools, delete
//     tools on test files for delete_tests) or from the shell command.
//   - test_edit: the call writes a test file (Policy.TestGlobs) and the
//     pattern's test_edits is strict. When it is advisory (the default) the
//     call is allowed with a test_edit advice instead. A test file the run
//     created itself is its own (a scratch script, or a new test it is
//     writing): writing or deleting it is not a test edit. The run creates
//     a file when it writes it whole before it has changed it in place: a
//     shell redirection (>), tee, touch or mkdir, a create_file tool, or an
//     editor tool called with "command": "create". The state remembers
//     MaxTestFiles files created and as many edited in place.
//
// An allowed shell call whose command names paths outside the workspace
// (absolute paths, ~, $HOME, relative paths that climb out) draws a
// path_escape advice, unless they match Shell.SafePaths. Scripts, patterns
// and code in a command's arguments (sed and awk scripts, grep patterns,
// python -c code, find's name tests, commit messages) are not paths; see
// package shell.
//
// A shell tool is one the vocabulary names (workspace.Vocabulary's
// ShellTools) or one the run declares with a shell tool's schema
// (workspace.ShellSchema), such as OpenHands' execute_bash. A find that
// deletes only the files its -name tests pick (find . -name '*.pyc'
// -delete) is taken to delete those files, not its starting directory: it
// writes a protected path only when it starts inside one, or a name test
// matches a protected glob's literal last element (.git/HEAD).
//
// A result is checked after its changes (chg) are counted, whether or not
// the tool failed (a failed edit may still have changed files): files are
// the distinct normalised chg.paths, or chg.files for a result that lists
// none; lines and hunks are summed. A change to a protected path stops the
// run (rule protected_path), and so does a run whose totals pass the
// pattern's max_changes (rule max_changes). Both stops have outcome failed
// and carry the totals (files, lines, hunks) as counters, and the limit
// passed (max_files, max_lines or max_hunks).
//
// # Paths
//
// Paths are normalised before any check: workspace-relative, cleaned with
// path.Clean semantics. An absolute path inside the workspace becomes
// relative; an absolute path elsewhere, a relative path climbing above the
// root, and a path starting with ~ or $HOME escape it. A Windows workspace
// root (C:\...) makes backslashes separators and the comparison
// case-insensitive. Without a workspace, paths are checked as given, and
// protected globs also match at any depth of an absolute path. Symbolic
// links are not resolved: this is a policy check, not a sandbox.
//
// # Globs
//
// Globs are doublestar's (github.com/bmatcuk/doublestar): a path matches a
// glob exactly when doublestar.Match says so, and Validate refuses a glob
// doublestar calls invalid or whose alternatives ({a,b}) expand to more
// than MaxGlobExpansion patterns. Each list of globs is compiled into one
// matcher whose cost does not grow with the list. Alternatives are
// expanded, except where doublestar reads them differently from their
// expansion (a*{*,b}), and each pattern is filed under one literal key
// that every path it matches has: the whole path, the last element
// (**/conftest.py), the leading directories (.git/objects/**), the first
// or last bytes of the last element (**/test_*.py, **/*_test.go), or an
// element anywhere (**/testdata/**), whichever the fewest patterns of the
// list share. A path is tried, by doublestar, only against the patterns
// filed under its own keys and the few filed under none (**/*, or a class
// that can match '/'); the first glob of the list that matches is the one
// a message names. An edit call costs about the same against 8 globs per
// list as against 1,024, and matching allocates nothing.
//
// # State
//
// The state holds the run's pattern id and workspace, the run's declared
// shell tools (at most workspace.MaxShells), change totals, at most
// MaxPaths distinct changed paths (sorted) and the test files it created
// and edited (at most MaxTestFiles each), never a history. A second
// run start of the same run is ignored.
package policy
