package shell

import "strings"

// notPaths marks the arguments of a command that are code, patterns or
// messages rather than paths: the script of sed or awk, the pattern of
// grep, the code of python -c, the tests of find, a commit message. Their
// slashes delimit regular expressions (sed '/DEBUG:/d') or belong to
// text, and must not be read as paths outside the workspace.
func notPaths(name string, args []string) []bool {
	skip := make([]bool, len(args))
	mark := func(i int) {
		if i >= 0 && i < len(args) {
			skip[i] = true
		}
	}
	// valued marks the values of the options in opts ("-e X", "-eX",
	// "--expression=X") and reports whether any was found.
	valued := func(short string, long ...string) bool {
		found := false
		for i, w := range args {
			switch {
			case w == "--":
				return found
			case w == short || contains(long, w):
				mark(i + 1)
				found = true
			case short != "" && len(w) > 2 && strings.HasPrefix(w, short) && w[1] != '-':
				mark(i)
				found = true
			}
			for _, l := range long {
				if strings.HasPrefix(w, l+"=") {
					mark(i)
					found = true
				}
			}
		}
		return found
	}
	// firstOperand marks the first word that is not an option, skipping
	// the values of the options in withArg.
	firstOperand := func(withArg ...string) {
		for i := 0; i < len(args); i++ {
			w := args[i]
			switch {
			case w == "--":
				mark(i + 1)
				return
			case len(w) > 1 && w[0] == '-':
				if contains(withArg, w) {
					i++
				}
			default:
				mark(i)
				return
			}
		}
	}
	switch name {
	case "sed", "gsed":
		if !valued("-e", "--expression") && !hasOption(args, "-f", "--file") {
			firstOperand("-l", "--line-length")
		}
	case "awk", "gawk", "mawk", "nawk":
		valued("-v", "--assign")
		if !hasOption(args, "-f", "--file") {
			firstOperand("-v", "-F", "--field-separator", "--assign")
		}
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag", "ack", "ack-grep":
		if !valued("-e", "--regexp") && !hasOption(args, "-f", "--file") {
			firstOperand("-A", "-B", "-C", "-m", "--max-count", "--include", "--exclude", "--exclude-dir", "-g", "--glob", "-t", "--type", "-T", "--type-not")
		}
		valued("", "--include", "--exclude", "--exclude-dir")
		valued("-g", "--glob")
	case "python", "python2", "python3", "pypy", "pypy3":
		if i := indexOf(args, "-c"); i >= 0 {
			for j := i + 1; j < len(args); j++ {
				mark(j) // the code and its arguments
			}
		}
	case "perl", "ruby", "node", "nodejs", "deno", "bun", "php":
		valued("-e", "--eval", "-E", "-r")
		valued("-E")
	case "find":
		for i, w := range args {
			switch w {
			case "-name", "-iname", "-path", "-ipath", "-wholename", "-iwholename", "-regex", "-iregex", "-lname", "-ilname":
				mark(i + 1)
			}
		}
	case "git":
		valued("-m", "--message")
		valued("", "--grep", "--author", "--format", "--pretty")
		if first(operandsSkipping(args, gitOptionsWithArg...)) == "grep" {
			if !valued("-e") {
				ops := 0
				for i, w := range args {
					if len(w) > 0 && w[0] != '-' {
						if ops == 1 {
							mark(i)
							break
						}
						ops++
					}
				}
			}
		}
	case "ln":
		if symbolic(args) {
			ops := 0
			for i, w := range args {
				if len(w) > 0 && w[0] != '-' {
					skip[i] = true // link targets: see linkTargets
					ops++
				}
			}
			if ops > 1 { // the last operand is the link or its directory
				for i := len(args) - 1; i >= 0; i-- {
					if len(args[i]) > 0 && args[i][0] != '-' {
						skip[i] = false
						break
					}
				}
			}
		}
	case "jq", "yq":
		firstOperand("--arg", "--argjson", "--slurpfile", "--rawfile", "-f", "--from-file")
	}
	return skip
}

// hasOption reports whether args hold the short or long option.
func hasOption(args []string, short, long string) bool {
	for _, w := range args {
		if w == short || w == long || strings.HasPrefix(w, long+"=") {
			return true
		}
	}
	return false
}

func indexOf(list []string, w string) int {
	for i, x := range list {
		if x == w {
			return i
		}
	}
	return -1
}
