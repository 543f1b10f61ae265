package exitcode

import (
	"path"
	"strings"

	"github.com/guardstream/guardstream/internal/shell"
)

// Kind is what a command's exit statuses mean.
type Kind uint8

// Kinds.
const (
	// Plain: 0 is success and anything else a failure.
	Plain Kind = iota
	// Search: 1 means nothing was found (grep, egrep, fgrep, zgrep, rg,
	// ag, ack, git grep, pgrep, which, command -v, type); 2 and up fail.
	Search
	// Compare: 1 means the inputs differ or the condition is false (diff,
	// cmp, git diff --exit-code or --no-index, test, [, [[); 2 and up
	// fail.
	Compare
	// Lint: a linter's non-zero status reports findings; only its own
	// error statuses fail (pylint 32, mypy, ruff, flake8, eslint and
	// black 2 and up).
	Lint
	// Pylint: pylint's status is a bit mask of the kinds of messages it
	// issued (1 to 31); 32 is a usage error.
	Pylint
	// Test: a test runner (pytest, unittest, tox, Django's runtests.py or
	// manage.py test, go test, cargo test, npm test, ...); 1 means tests
	// failed, which is the runner's answer about the code.
	Test
	// Pytest: pytest, whose statuses are specific: 1 tests failed, 2
	// interrupted (such as by collection errors), 3 internal error, 4
	// usage error, 5 no tests collected.
	Pytest
)

var kindNames = [...]string{"plain", "search", "compare", "lint", "pylint", "test", "pytest"}

// String returns the kind's name.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "kind(" + string(rune('0'+k)) + ")"
}

// IsTest reports whether k is a test runner's.
func (k Kind) IsTest() bool { return k == Test || k == Pytest }

// Of classifies the command line cmd by its last simple command.
func Of(cmd string) Kind {
	return of(cmd, 0)
}

// OfArgv classifies one simple command given as its words, such as an
// element of shell.Commands or the argument vector a tool runs.
func OfArgv(argv []string) Kind {
	return ofCommand(argv, 0)
}

func of(cmd string, depth int) Kind {
	cmds := shell.Commands(cmd)
	if len(cmds) == 0 {
		return Plain
	}
	return ofCommand(cmds[len(cmds)-1], depth)
}

func ofCommand(argv []string, depth int) Kind {
	if len(argv) == 0 {
		return Plain
	}
	name := path.Base(argv[0])
	if depth < shell.MaxDepth && isShell(name) {
		for i, w := range argv[1:] {
			if w == "-c" && i+2 < len(argv) {
				return of(argv[i+2], depth+1)
			}
		}
	}
	if name == "test" && strings.Contains(argv[0], "/") {
		return Test // a script named test, such as sympy's bin/test, not the test builtin
	}
	return ofArgv(name, argv[1:])
}

func isShell(name string) bool {
	switch name {
	case "sh", "bash", "zsh", "dash", "ksh", "ash":
		return true
	}
	return false
}

// ofArgv classifies one simple command: its program's name and arguments.
func ofArgv(name string, args []string) Kind {
	sub := firstOperand(args)
	switch name {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ack-grep", "pgrep", "which", "type", "whereis":
		return Search
	case "command":
		if len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
			return Search
		}
	case "diff", "cmp", "colordiff", "test", "[", "[[":
		return Compare
	case "git":
		switch sub {
		case "grep":
			return Search
		case "diff":
			for _, w := range args {
				if w == "--exit-code" || w == "--quiet" || w == "--no-index" {
					return Compare
				}
			}
		}
	case "pylint", "pylint3":
		return Pylint
	case "flake8", "pycodestyle", "pyflakes", "pydocstyle", "mypy", "ruff", "black", "isort", "eslint", "shellcheck",
		"golangci-lint", "golint", "staticcheck", "rubocop", "yamllint", "hadolint", "bandit":
		return Lint
	case "pytest", "py.test", "pytest-3":
		return Pytest
	case "tox", "nox", "nosetests", "trial", "jest", "mocha", "vitest", "ava", "tap", "phpunit", "rspec", "ctest":
		return Test
	case "python", "python2", "python3", "pypy", "pypy3":
		return ofPython(args)
	case "go", "cargo", "dotnet", "mvn", "gradle", "./gradlew", "gradlew", "swift", "mix", "dune", "stack", "cabal":
		if sub == "test" || sub == "vet" && name == "go" {
			return Test
		}
	case "npm", "yarn", "pnpm", "bun":
		if sub == "test" || sub == "t" || sub == "run" && len(args) > 1 && strings.HasPrefix(operandAfter(args, "run"), "test") {
			return Test
		}
	case "make":
		if sub == "test" || sub == "check" || sub == "tests" {
			return Test
		}
	case "test.py", "runtests.py", "runtests", "run_tests.py", "run-tests":
		return Test
	}
	return Plain
}

// ofPython classifies python's arguments: -m runs a module as a program,
// a script named like a test runner runs tests.
func ofPython(args []string) Kind {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "-m" && i+1 < len(args):
			mod := args[i+1]
			switch mod {
			case "pytest", "py.test":
				return Pytest
			case "unittest", "nose", "nose2", "tox", "twisted.trial":
				return Test
			case "pylint":
				return Pylint
			case "flake8", "pycodestyle", "pyflakes", "mypy", "ruff", "black", "isort", "bandit", "pydocstyle":
				return Lint
			}
			return Plain
		case w == "-c":
			return Plain
		case len(w) > 1 && w[0] == '-':
			if w == "-W" || w == "-X" {
				i++
			}
		default:
			base := path.Base(w)
			switch {
			case base == "runtests.py" || base == "run_tests.py" || base == "test.py" || base == "runtest.py":
				return Test
			case base == "manage.py" && firstOperand(args[i+1:]) == "test":
				return Test
			case base == "setup.py" && firstOperand(args[i+1:]) == "test":
				return Test
			}
			return Plain
		}
	}
	return Plain
}

// firstOperand returns the first argument that is not an option.
func firstOperand(args []string) string {
	for _, w := range args {
		if w != "" && w[0] != '-' {
			return w
		}
	}
	return ""
}

// operandAfter returns the operand that follows the word w.
func operandAfter(args []string, w string) string {
	for i, a := range args {
		if a == w {
			return firstOperand(args[i+1:])
		}
	}
	return ""
}
