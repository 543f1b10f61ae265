package shell

import "strings"

// inlineCode returns the programs an interpreter's command line gives as
// text rather than as a file: python -c CODE, or a here-document fed to
// python with no script (python3 - <<EOF); node -e or -p CODE.
func inlineCode(name string, args, heredocs []string) []string {
	switch name {
	case "python", "python2", "python3", "pypy", "pypy3":
		for i, w := range args {
			switch {
			case w == "-c":
				if i+1 < len(args) {
					return args[i+1 : i+2]
				}
				return nil
			case strings.HasPrefix(w, "-c") && len(w) > 2:
				return []string{w[2:]}
			case w == "-m":
				return nil // a module runs
			case w == "-":
				return heredocs
			case len(w) > 0 && w[0] != '-':
				return nil // a script on disk: opaque
			}
		}
		return heredocs
	case "node", "nodejs":
		for i, w := range args {
			if (w == "-e" || w == "--eval" || w == "-p" || w == "--print") && i+1 < len(args) {
				return args[i+1 : i+2]
			}
		}
	}
	return nil
}

// program reads a program's text for what a shell command would do: a
// recursive delete of a path given as a literal (Python's shutil.rmtree,
// Node's fs.rmSync or fs.rmdirSync with recursive), and shell commands
// run from it (os.system, os.popen, subprocess with a command line or an
// argument list of literals, child_process's execSync). Paths and
// commands it builds at run time are not seen.
func (a *analyzer) program(code string, depth int) {
	if depth > MaxDepth {
		a.danger(RuleNesting, []string{abbrev(code)}, "scripts nested more than "+itoa(MaxDepth)+" deep")
		return
	}
	for _, call := range []string{"rmtree(", ".rmSync(", ".rmdirSync("} {
		for at := 0; ; {
			i := strings.Index(code[at:], call)
			if i < 0 {
				break
			}
			at += i + len(call)
			args := callArgs(code[at:])
			if call != "rmtree(" && !strings.Contains(args, "recursive") {
				continue
			}
			lit, ok := stringLiteral(args)
			if !ok {
				continue
			}
			a.res.Ops |= OpDelete
			if what, ok := a.wipes(lit); ok {
				a.danger(RuleRecursiveDelete, []string{strings.Trim(call, ".(") + "(" + Quote(lit) + ")"}, what)
			}
			a.write(lit, Target{Delete: true, Recursive: true})
		}
	}
	for _, call := range shellCalls {
		for at := 0; ; {
			i := strings.Index(code[at:], call)
			if i < 0 {
				break
			}
			at += i + len(call)
			if i := at - len(call); i > 0 && isIdent(code[i-1]) {
				continue // my_execSync(, not execSync( or cp.execSync(
			}
			args := strings.TrimLeft(callArgs(code[at:]), " \t\n")
			if strings.HasPrefix(args, "[") {
				if argv, ok := literalList(args); ok && len(argv) > 0 {
					a.argv(argv, nil, depth+1)
				}
				continue
			}
			if lit, ok := stringLiteral(args); ok {
				a.script(lit, depth+1)
			}
		}
	}
}

// shellCalls are the calls of Python and Node programs that run a shell
// command line or a program given as a list of arguments.
var shellCalls = []string{
	"os.system(", "os.popen(", "subprocess.run(", "subprocess.call(", "subprocess.check_call(",
	"subprocess.check_output(", "subprocess.Popen(", "execSync(", "spawnSync(",
}

func isIdent(c byte) bool {
	return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// maxCallArgs bounds the text callArgs reads, so that reading a program
// takes time linear in its length whatever it holds.
const maxCallArgs = 1024

// callArgs returns the text of a call's arguments: s up to the
// parenthesis that closes the call, or to the end of the line if none
// does there, at most maxCallArgs bytes. Quotes are skipped whole.
func callArgs(s string) string {
	if len(s) > maxCallArgs {
		s = s[:maxCallArgs]
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			if depth == 0 {
				return s[:i]
			}
			depth--
		case '\'', '"', '`':
			end := closingQuote(s, i)
			if end < 0 {
				return s
			}
			i = end
		case '\n':
			if depth == 0 {
				return s[:i]
			}
		}
	}
	return s
}

// closingQuote returns the index of the quote that closes the one at
// s[i], skipping escaped characters, or -1.
func closingQuote(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return -1
}

// stringLiteral returns the string literal s starts with, after blanks
// and Python's prefixes (r, b, u, f), without its quotes and with its
// simple escapes undone.
func stringLiteral(s string) (string, bool) {
	s = strings.TrimLeft(s, " \t\n")
	s = strings.TrimLeft(s, "rRbBuUfF")
	if s == "" || !strings.ContainsRune("'\"`", rune(s[0])) {
		return "", false
	}
	end := closingQuote(s, 0)
	if end < 0 {
		return "", false
	}
	body := s[1:end]
	if !strings.Contains(body, `\`) {
		return body, true
	}
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		if body[i] == '\\' && i+1 < len(body) {
			i++
		}
		b.WriteByte(body[i])
	}
	return b.String(), true
}

// literalList returns the string literals of a list literal that s
// starts with ("[", literals separated by commas, "]"), or false if any of
// its elements is not one.
func literalList(s string) ([]string, bool) {
	s = strings.TrimPrefix(s, "[")
	var out []string
	for {
		s = strings.TrimLeft(s, " \t\n")
		if strings.HasPrefix(s, "]") {
			return out, true
		}
		lit, ok := stringLiteral(s)
		if !ok {
			return nil, false
		}
		out = append(out, lit)
		s = strings.TrimLeft(s, " \t\nrRbBuUfF")
		s = s[closingQuote(s, 0)+1:]
		s = strings.TrimLeft(s, " \t\n")
		switch {
		case strings.HasPrefix(s, ","):
			s = s[1:]
		case strings.HasPrefix(s, "]"):
		default:
			return nil, false
		}
	}
}
