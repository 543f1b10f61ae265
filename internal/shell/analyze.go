package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Analyze classifies the command line cmd. root is the absolute workspace
// root, or "" if unknown; commands are assumed to start in it.
func Analyze(cmd, root string) Analysis {
	a := analyzer{root: cleanRoot(root)}
	a.script(cmd, 0)
	return a.res
}

// AnalyzeArgv classifies a command given as an argument vector, as tools
// that exec a program without a shell take it.
func AnalyzeArgv(argv []string, root string) Analysis {
	var b strings.Builder
	for i, w := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(Quote(w))
	}
	return Analyze(b.String(), root)
}

// Quote returns w quoted for a POSIX shell, unchanged if it needs no quotes.
func Quote(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n\r;&|()<>'\"\\$`#*?[]{}~!=") {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

func cleanRoot(root string) string {
	if root == "" || !strings.HasPrefix(root, "/") {
		return "" // a Windows root: the classifier speaks POSIX sh only
	}
	return path.Clean(root)
}

type analyzer struct {
	root       string
	cwd        string // where the command line is, relative to its start ("" = there), or absolute, or under "~"
	cwdUnknown bool   // a cd went somewhere the classifier cannot follow
	tooLarge   bool   // RuleTooLarge refused the command line: stop
	res        Analysis
}

func (a *analyzer) danger(rule Rule, argv []string, what string) {
	if a.res.Danger.Rule == "" {
		a.res.Danger = Danger{Rule: rule, Command: strings.Join(argv, " "), What: what}
	}
}

func (a *analyzer) script(s string, depth int) {
	if a.res.Dangerous() || a.tooLarge {
		return
	}
	if depth > MaxDepth {
		a.danger(RuleNesting, []string{abbrev(s)}, "scripts nested more than "+itoa(MaxDepth)+" deep")
		return
	}
	if name, ok := forkBomb(s); ok {
		a.danger(RuleForkBomb, []string{abbrev(s)}, "a fork bomb ("+name+" pipes itself into itself)")
		return
	}
	l := lex(s)
	for i := range l.cmds {
		if a.tooLarge {
			return
		}
		a.command(&l.cmds[i], depth)
	}
	for _, sub := range l.subs {
		a.script(sub, depth+1)
	}
}

// refuseTooLarge refuses the command line as larger than the classifier
// follows, and stops the analysis.
func (a *analyzer) refuseTooLarge(what string) {
	a.danger(RuleTooLarge, []string{what}, "paths the classifier cannot follow; split the command line")
	a.tooLarge = true
}

func abbrev(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > 80 {
		return s[:77] + "..."
	}
	return s
}

func itoa(n int) string {
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa(n/10) + string(rune('0'+n%10))
}

// reserved words that may start a command and are dropped.
var reserved = map[string]bool{
	"if": true, "then": true, "elif": true, "else": true, "fi": true, "do": true, "done": true,
	"while": true, "until": true, "!": true, "{": true, "}": true, "esac": true, "[[": true, "]]": true,
}

// opaque words start a command the classifier skips: the words after them
// are lists, patterns or names, not a command.
var opaque = map[string]bool{"for": true, "case": true, "select": true, "function": true, "in": true}

func (a *analyzer) command(c *command, depth int) {
	for _, w := range c.writes {
		if isDevice(w.path) {
			a.danger(RuleDeviceRedirect, []string{">", w.path}, "a redirection onto the block device "+w.path)
		}
		a.write(w.path, Target{Create: w.truncate, Append: !w.truncate})
		a.path(w.path)
	}
	words := c.words
	for len(words) > 0 && !words[0].quoted && reserved[words[0].text] {
		words = words[1:]
	}
	if len(words) == 0 || !words[0].quoted && opaque[words[0].text] {
		return
	}
	argv := make([]string, len(words))
	for i, w := range words {
		argv[i] = w.text
	}
	a.argv(argv, c.heredocs, depth)
}

// argv classifies one simple command given as words.
func (a *analyzer) argv(argv []string, heredocs []string, depth int) {
	argv = a.unwrap(argv, depth)
	if len(argv) == 0 {
		return
	}
	name, args := path.Base(argv[0]), argv[1:]
	for _, code := range inlineCode(name, args, heredocs) {
		a.program(code, depth)
	}
	switch {
	case name == "rm":
		a.rm(argv)
	case name == "rmdir" || name == "unlink":
		a.res.Ops |= OpDelete
		for _, op := range operands(args) {
			a.write(op, Target{Delete: true})
		}
	case name == "shred":
		a.res.Ops |= OpDelete
		for _, op := range operands(args) {
			if isDevice(op) {
				a.danger(RuleDeviceWrite, argv, "the block device "+op)
			}
			a.write(op, Target{Delete: true})
		}
	case name == "find":
		a.find(argv)
	case name == "git":
		a.git(argv)
	case strings.HasPrefix(name, "mkfs") || name == "mke2fs" || name == "mkswap" || name == "wipefs":
		a.danger(RuleMkfs, argv, "a file system or its signature ("+name+")")
	case name == "dd":
		for _, w := range args {
			if of, ok := strings.CutPrefix(w, "of="); ok {
				if isDevice(of) {
					a.danger(RuleDeviceWrite, argv, "the block device "+of)
				}
				a.write(of, Target{Create: true})
			}
		}
	case name == "chmod" || name == "chown" || name == "chgrp":
		a.chmod(argv)
	case name == "cd" || name == "pushd":
		for _, w := range args {
			a.path(w) // where it goes, from where it was
		}
		a.cd(args)
		return
	case shells[name]:
		a.shell(argv, heredocs, depth)
	case name == "eval":
		a.script(strings.Join(args, " "), depth+1)
	case name == "su":
		a.res.Ops |= OpSudo
		if s, ok := optionArg(args, "-c", "--command"); ok {
			a.script(s, depth+1)
		}
	case name == "touch" || name == "mkdir" || name == "tee" || name == "truncate":
		appends := name == "tee" && (contains(args, "--append") || slices.ContainsFunc(args, func(w string) bool { return shortFlag(w, "a") }))
		create := name != "truncate" && !appends
		for _, op := range operandsSkipping(args, "-s", "-r", "--size", "--reference", "-m", "--mode", "-d", "-t") {
			a.write(op, Target{Create: create, Append: appends})
		}
	case name == "cp" || name == "install" || name == "ln" || name == "mv":
		ops := operandsSkipping(args, "-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group")
		dir, toDir := optionArg(args, "-t", "--target-directory")
		if !toDir && len(ops) > 1 {
			dir, ops = ops[len(ops)-1], ops[:len(ops)-1]
		}
		if name == "mv" {
			for _, src := range ops {
				a.write(src, Target{Delete: true, Recursive: true}) // moved away, with everything under it
			}
		}
		if dir != "" {
			a.write(dir, Target{}) // a file it may replace, or a directory
		}
		if name == "ln" && symbolic(args) {
			a.linkTargets(ops, dir, toDir)
		}
	case name == "sed" || name == "perl":
		a.inPlace(name, args)
	case name == "patch":
		if contains(args, "-R") || contains(args, "--reverse") {
			a.res.Ops |= OpRevert
		} else if !contains(args, "--dry-run") {
			a.res.Ops |= OpPatch
		}
	case network[name]:
		a.res.Ops |= OpNetwork
		a.download(name, args)
	case name == "rsync":
		for _, op := range operands(args) {
			if strings.HasPrefix(op, "rsync://") || remote(op) {
				a.res.Ops |= OpNetwork
			}
		}
		if ops := operands(args); len(ops) > 1 {
			a.write(ops[len(ops)-1], Target{})
		}
	default:
		if installs(name, args) {
			a.res.Ops |= OpPackageInstall | OpNetwork
		}
	}
	if name != "echo" && name != "printf" && name != ":" && name != "true" && name != "false" {
		code := notPaths(name, args)
		for i, w := range args {
			if !code[i] {
				a.path(w)
			}
		}
	}
}

// unwrap drops assignments and the wrappers that run the rest of the words
// as a command, and returns the command that is left.
func (a *analyzer) unwrap(argv []string, depth int) []string {
	for len(argv) > 0 {
		w := argv[0]
		switch name := path.Base(w); {
		case isAssignment(w):
			argv = argv[1:]
		case name == "sudo":
			a.res.Ops |= OpSudo
			argv = skipOptions(argv[1:], "-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U", "-T", "--user", "--group", "--host", "--prompt", "--chdir", "--role", "--type", "--other-user", "--command-timeout", "--close-from")
		case name == "doas":
			a.res.Ops |= OpSudo
			argv = skipOptions(argv[1:], "-u", "-C")
		case name == "pkexec":
			a.res.Ops |= OpSudo
			argv = skipOptions(argv[1:], "--user")
		case name == "env":
			// env's options end at its command: look for -S among them
			// only, or a line of envs would be read in quadratic time.
			rest := skipOptions(argv[1:], "-u", "-C", "--unset", "--chdir", "-S", "--split-string")
			if s, ok := optionArg(argv[1:len(argv)-len(rest)], "-S", "--split-string"); ok {
				a.script(s, depth+1)
				return nil
			}
			argv = rest
		case name == "nice":
			argv = skipOptions(argv[1:], "-n", "--adjustment")
		case name == "ionice":
			argv = skipOptions(argv[1:], "-c", "-n", "-p", "-P", "-u", "--class", "--classdata")
		case name == "timeout":
			argv = skipOptions(argv[1:], "-s", "-k", "--signal", "--kill-after")
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		case name == "stdbuf":
			argv = skipOptions(argv[1:], "-i", "-o", "-e", "--input", "--output", "--error")
		case name == "xargs":
			argv = skipOptions(argv[1:], "-I", "-L", "-n", "-P", "-s", "-d", "-E", "-a", "-i", "-l", "-e",
				"--max-lines", "--max-args", "--max-procs", "--max-chars", "--delimiter", "--eof", "--arg-file", "--replace")
		case name == "command":
			if len(argv) > 1 && (argv[1] == "-v" || argv[1] == "-V") {
				return nil // only looks the name up
			}
			argv = skipOptions(argv[1:])
		case name == "nohup" || name == "exec" || name == "builtin" || name == "time" || name == "busybox":
			argv = skipOptions(argv[1:], "-a")
		default:
			return argv
		}
	}
	return argv
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// skipOptions drops leading options, and the value of those in withArg
// written as a separate word, through a "--".
func skipOptions(argv []string, withArg ...string) []string {
	for len(argv) > 0 {
		w := argv[0]
		switch {
		case w == "--":
			return argv[1:]
		case len(w) < 2 || w[0] != '-':
			return argv
		case contains(withArg, w):
			argv = argv[min(2, len(argv)):]
		default:
			argv = argv[1:]
		}
	}
	return argv
}

// optionArg returns the value of the first option named short or long in
// args: "-c value", "-cvalue" for short, "--long value" and "--long=value".
// A short option may end a cluster ("-lc value").
func optionArg(args []string, short, long string) (string, bool) {
	for i, w := range args {
		switch {
		case w == "--":
			return "", false
		case w == short || w == long:
			if i+1 < len(args) {
				return args[i+1], true
			}
			return "", false
		case len(w) > len(long) && w[len(long)] == '=' && strings.HasPrefix(w, long):
			return w[len(long)+1:], true
		case len(short) == 2 && len(w) > 2 && w[0] == '-' && w[1] != '-' && strings.IndexByte(w[1:], short[1]) >= 0:
			at := strings.IndexByte(w[1:], short[1]) + 1
			if at == len(w)-1 {
				if i+1 < len(args) {
					return args[i+1], true
				}
				return "", false
			}
			if at == 1 {
				return w[2:], true
			}
		}
	}
	return "", false
}

// first returns the first word of list, or "".
func first(list []string) string {
	if len(list) == 0 {
		return ""
	}
	return list[0]
}

func contains(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

// operands returns the words that are not options; a "--" ends the
// options.
func operands(args []string) []string { return operandsSkipping(args) }

// operandsSkipping is operands for a command whose options in withArg take
// a value in the next word.
func operandsSkipping(args []string, withArg ...string) []string {
	var ops []string
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case w == "--":
			return append(ops, args[i+1:]...)
		case len(w) > 1 && w[0] == '-':
			if contains(withArg, w) {
				i++
			}
		default:
			ops = append(ops, w)
		}
	}
	return ops
}

// shortFlag reports whether w is a cluster of short options ("-rf")
// containing one of flags.
func shortFlag(w, flags string) bool {
	return len(w) > 1 && w[0] == '-' && w[1] != '-' && strings.ContainsAny(w[1:], flags)
}

func (a *analyzer) rm(argv []string) {
	a.res.Ops |= OpDelete
	recursive, end := false, false
	var targets []string
	for _, w := range argv[1:] {
		switch {
		case end:
			targets = append(targets, w)
		case w == "--":
			end = true
		case w == "--recursive":
			recursive = true
		case strings.HasPrefix(w, "--"):
		case shortFlag(w, "rR"):
			recursive = true
		case len(w) > 1 && w[0] == '-':
		default:
			targets = append(targets, w)
		}
	}
	for _, t := range targets {
		if recursive {
			if what, ok := a.wipes(t); ok {
				a.danger(RuleRecursiveDelete, argv, what)
			}
		}
		a.write(t, Target{Delete: true, Recursive: recursive})
	}
}

func (a *analyzer) find(argv []string) {
	args := argv[1:]
	for len(args) > 0 {
		if w := args[0]; w == "-H" || w == "-L" || w == "-P" || strings.HasPrefix(w, "-O") {
			args = args[1:]
		} else if w == "-D" && len(args) > 1 {
			args = args[2:]
		} else {
			break
		}
	}
	var starts []string
	for len(args) > 0 && args[0] != "" && args[0][0] != '-' && args[0] != "(" && args[0] != "!" {
		starts = append(starts, args[0])
		args = args[1:]
	}
	// A find deletes everything under its starting points when it deletes
	// without a test that picks what; with only name tests, it deletes
	// the files so named.
	deletes, filtered, negated := false, false, false
	var names []string
	for i := 0; i < len(args); i++ {
		switch w := args[i]; w {
		case "-delete":
			deletes = true
		case "-exec", "-execdir", "-ok", "-okdir":
			if i+1 < len(args) {
				switch path.Base(args[i+1]) {
				case "rm", "unlink", "shred", "rmdir":
					deletes = true
				}
			}
			for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
			}
		case "-maxdepth", "-mindepth":
			i++
		case "-depth", "-xdev", "-mount", "-print", "-print0", "-follow", "-noleaf", "-ignore_readdir_race",
			"-o", "-or", "-a", "-and", "(", ")":
		case "-name", "-iname":
			filtered = true
			if i+1 < len(args) {
				i++
				names = append(names, args[i])
			}
		case "-type":
			filtered = true
			i++
		case "!", "-not":
			filtered, negated = true, true
		default:
			filtered, negated = true, true // picks by something other than names
		}
	}
	if !deletes {
		return
	}
	a.res.Ops |= OpDelete
	if len(starts) == 0 {
		starts = []string{"."}
	}
	if negated || slices.Contains(names, "*") {
		names = nil
	}
	for _, s := range starts {
		if what, ok := a.wipes(s); ok && !filtered {
			a.danger(RuleRecursiveDelete, argv, what)
		}
		a.write(s, Target{Delete: true, Recursive: true, Names: slices.Clone(names)})
	}
}

// gitOptionsWithArg are git's global options that take a value in the
// next word.
var gitOptionsWithArg = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}

func (a *analyzer) git(argv []string) {
	args := skipOptions(argv[1:], gitOptionsWithArg...)
	if len(args) == 0 {
		return
	}
	sub, rest := args[0], args[1:]
	switch sub {
	case "push":
		a.res.Ops |= OpGitPush | OpNetwork
		for _, w := range rest {
			force := w == "--force" || w == "--force-with-lease" || strings.HasPrefix(w, "--force-with-lease=") ||
				w == "--mirror" || shortFlag(w, "f") || strings.HasPrefix(w, "+") && len(w) > 1
			if force {
				a.res.Ops |= OpForcePush
				a.danger(RuleForcePush, argv, "the remote branch's history")
			}
		}
	case "rm":
		if contains(rest, "--cached") {
			return
		}
		a.res.Ops |= OpDelete
		recursive := false
		for _, w := range rest {
			recursive = recursive || shortFlag(w, "r")
		}
		for _, op := range operands(rest) {
			a.write(op, Target{Delete: true, Recursive: recursive})
		}
	case "clean":
		a.clean(argv, rest)
	case "config":
		a.gitConfig(argv[1:len(argv)-len(args)], rest)
	case "stash":
		switch op := first(operands(rest)); op {
		case "", "push", "save":
			a.res.Ops |= OpRevert
		case "pop", "apply":
			a.res.Ops |= OpUnstash
		}
	case "checkout", "restore":
		if contains(rest, "-b") || contains(rest, "-B") || contains(rest, "--orphan") {
			return // a new branch at the current commit: the files stay
		}
		if sub == "restore" && (contains(rest, "--staged") || contains(rest, "-S")) && !contains(rest, "--worktree") && !contains(rest, "-W") {
			return // the index only
		}
		a.res.Ops |= OpRevert
	case "reset":
		if contains(rest, "--hard") || contains(rest, "--merge") || contains(rest, "--keep") {
			a.res.Ops |= OpRevert
			switch rev := first(operands(rest)); rev {
			case "", "HEAD", "@":
			default:
				a.danger(RuleGitReset, argv, "the branch's commits after "+rev+" and every uncommitted change")
			}
		}
	case "apply", "am", "cherry-pick", "merge", "rebase", "revert", "switch":
		if sub == "apply" && (contains(rest, "-R") || contains(rest, "--reverse")) {
			a.res.Ops |= OpRevert
		} else if sub != "apply" || !contains(rest, "--check") && !contains(rest, "--stat") {
			a.res.Ops |= OpPatch
		}
	case "clone", "fetch", "ls-remote":
		a.res.Ops |= OpNetwork
	case "pull":
		a.res.Ops |= OpNetwork | OpPatch
	}
}

func (a *analyzer) chmod(argv []string) {
	recursive := false
	for _, w := range argv[1:] {
		recursive = recursive || w == "--recursive" || shortFlag(w, "R")
	}
	ops := operands(argv[1:])
	reference := false
	mode := ""
	for _, w := range argv[1:] {
		reference = reference || strings.HasPrefix(w, "--reference")
		if path.Base(argv[0]) == "chmod" && mode == "" && len(w) > 1 && w[0] == '-' && strings.Trim(w[1:], "rwxXst") == "" {
			mode = w // chmod -x file: a mode, not an option
		}
	}
	if len(ops) > 0 && !reference && mode == "" {
		mode, ops = ops[0], ops[1:] // the mode or owner
	}
	for _, op := range ops {
		switch {
		case !recursive:
		case a.isRoot(op):
			a.danger(RuleChmodRoot, argv, "the permissions or ownership of every file on the machine")
		case path.Base(argv[0]) == "chmod" && locksOut(mode):
			if what, ok := a.wipes(op); ok {
				a.danger(RuleChmodLockout, argv, "its owner's access to "+what+" (mode "+mode+")")
			}
		}
		a.write(op, Target{Recursive: recursive})
	}
}

// locksOut reports whether a chmod mode, applied to files and directories
// alike, takes the owner's read, write or search permission away: an
// octal mode whose owner digit is not 7, or a symbolic clause for the
// owner (u, a or none) that removes r, w or x, or sets the permissions to
// fewer than rwx.
func locksOut(mode string) bool {
	if mode == "" {
		return false
	}
	if strings.Trim(mode, "01234567") == "" {
		if len(mode) > 4 {
			return false
		}
		owner := byte('0')
		if len(mode) >= 3 {
			owner = mode[len(mode)-3]
		}
		return owner != '7'
	}
	for _, clause := range strings.Split(mode, ",") {
		who := strings.TrimLeft(clause, "ugoa")
		owner := len(who) == len(clause) || strings.ContainsAny(clause[:len(clause)-len(who)], "ua")
		if !owner {
			continue
		}
		// One or more actions: an operator and its permissions.
		for rest := who; rest != ""; {
			op := rest[0]
			if op != '+' && op != '-' && op != '=' {
				return false // not a mode chmod takes
			}
			end := 1
			for end < len(rest) && !strings.ContainsRune("+-=", rune(rest[end])) {
				end++
			}
			perms := rest[1:end]
			switch {
			case op == '-' && strings.ContainsAny(perms, "rwxX"):
				return true
			case op == '=' && !(strings.ContainsRune(perms, 'r') && strings.ContainsRune(perms, 'w') && strings.ContainsAny(perms, "xX")):
				return true
			}
			rest = rest[end:]
		}
	}
	return false
}

// clean reads git clean: with -n it only lists; with -f and -x over the
// whole tree it removes everything git does not track (RuleGitClean).
func (a *analyzer) clean(argv, rest []string) {
	force, ignored := false, false
	for _, w := range rest {
		switch {
		case w == "-n" || w == "--dry-run" || shortFlag(w, "n"):
			return
		case w == "--":
		case w == "--force":
			force = true
		case strings.HasPrefix(w, "--"):
		case len(w) > 1 && w[0] == '-':
			force = force || strings.ContainsRune(w, 'f')
			ignored = ignored || strings.ContainsRune(w, 'x')
		}
	}
	a.res.Ops |= OpDelete
	ops := operandsSkipping(rest, "-e", "--exclude")
	whole := len(ops) == 0
	for _, op := range ops {
		if what, ok := a.wipes(op); ok && strings.HasPrefix(what, "the workspace root") || op == ":/" {
			whole = true
		}
	}
	if force && ignored && whole {
		a.danger(RuleGitClean, argv, "every file of the work tree git does not track, ignored ones too (environments, local settings, work not yet committed)")
	}
}

// gitConfig reads git config: setting, in the repository's own config, a
// key that makes git run a program (core.hooksPath, core.fsmonitor, a
// filter's clean command, ...) writes git's internals as surely as an
// edit of .git/config does, and is reported as a write of it. Other keys,
// reads and the global or system config are not.
func (a *analyzer) gitConfig(global, rest []string) {
	for _, w := range rest {
		switch {
		case w == "--global" || w == "--system" || w == "-f" || w == "--file" || w == "--blob" || strings.HasPrefix(w, "--file="),
			w == "-l" || w == "--list" || w == "-e" || w == "--edit" || strings.HasPrefix(w, "--get"):
			return
		}
	}
	ops := operandsSkipping(rest, "--type", "--default", "--comment")
	key := first(ops)
	if sub := first(ops); (sub == "set" || sub == "unset") && len(ops) > 1 {
		key = ops[1] // git 2.46's subcommands
	}
	if !runsProgram(strings.ToLower(key)) {
		return
	}
	dir := ".git"
	if c, ok := optionArg(global, "-C", "--no-such-option"); ok {
		dir = path.Join(c, ".git")
	}
	if g, ok := optionArg(global, "--git-dir", "--git-dir"); ok {
		dir = g
	}
	a.write(path.Join(dir, "config"), Target{})
}

// runsProgram reports whether the git config key (lower case) names a
// program git runs.
func runsProgram(key string) bool {
	switch key {
	case "core.hookspath", "core.fsmonitor", "core.sshcommand", "core.pager", "core.editor", "core.askpass",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "gpg.ssh.program":
		return true
	}
	dot := strings.LastIndexByte(key, '.')
	if dot < 0 {
		return false
	}
	section, name := key[:strings.IndexByte(key, '.')], key[dot+1:]
	switch section {
	case "filter":
		return name == "clean" || name == "smudge" || name == "process"
	case "diff":
		return name == "textconv" || name == "command"
	case "merge":
		return name == "driver"
	case "alias":
		return true // "!cmd" runs a shell command
	}
	return false
}

// isRoot reports whether t is / (or /*), after any cd.
func (a *analyzer) isRoot(t string) bool {
	if t == "/*" {
		return true
	}
	r, ok := a.resolve(t)
	return ok && path.Clean(r) == "/"
}

func (a *analyzer) cd(args []string) {
	ops := operands(args)
	switch {
	case len(ops) == 0 || ops[0] == "~" || ops[0] == "$HOME" || ops[0] == "${HOME}":
		a.cwd, a.cwdUnknown = "~", false
	case ops[0] == "-" || strings.ContainsAny(ops[0], "$`*?"):
		a.cwdUnknown = true
	default:
		r, ok := a.resolve(ops[0])
		if !ok {
			return
		}
		if r = path.Clean(r); len(r) > MaxPathLen {
			a.refuseTooLarge(fmt.Sprintf("cd into a path of %d bytes, longer than %d", len(r), MaxPathLen))
			return
		}
		a.cwd = r
	}
}

// shells run a script given with -c, or read one from a here-document.
var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "ash": true, "mksh": true}

func (a *analyzer) shell(argv []string, heredocs []string, depth int) {
	if s, ok := optionArg(argv[1:], "-c", "--command"); ok {
		a.script(s, depth+1)
		return
	}
	if len(operandsSkipping(argv[1:], "-o", "+o", "-O", "+O", "--rcfile", "--init-file")) > 0 {
		return // a script on disk: opaque
	}
	for _, h := range heredocs {
		a.script(h, depth+1)
	}
}

func (a *analyzer) inPlace(name string, args []string) {
	inPlace, script := false, false
	for _, w := range args {
		switch {
		case w == "--in-place" || strings.HasPrefix(w, "--in-place="):
			inPlace = true
		case w == "-e" || w == "-f" || w == "--expression" || w == "--file" || strings.HasPrefix(w, "--expression="):
			script = true
		case len(w) > 1 && w[0] == '-' && w[1] != '-':
			inPlace = inPlace || strings.IndexByte(w, 'i') > 0
			script = script || name == "perl" && strings.ContainsAny(w, "eE")
		}
	}
	if !inPlace {
		return
	}
	ops := operandsSkipping(args, "-e", "-f", "--expression", "--file", "-l")
	var scripts []string
	if !script && len(ops) > 0 {
		scripts, ops = ops[:1], ops[1:]
	}
	if name == "sed" {
		for i, w := range args {
			switch {
			case (w == "-e" || w == "--expression") && i+1 < len(args):
				scripts = append(scripts, args[i+1])
			case strings.HasPrefix(w, "--expression="):
				scripts = append(scripts, w[len("--expression="):])
			}
		}
	}
	// A sed that only inserts lines adds to its files; one with a script
	// file (-f) or a script it cannot read may do anything.
	adds := name == "sed" && len(scripts) > 0 && !hasOption(args, "-f", "--file")
	for _, sc := range scripts {
		_, only := parseSed(sc)
		adds = adds && only
	}
	for _, op := range ops {
		a.write(op, Target{Append: adds})
	}
	for _, sc := range scripts {
		a.sedEdits(sc, ops)
	}
}

// symbolic reports whether ln's arguments ask for a symbolic link.
func symbolic(args []string) bool {
	for _, w := range args {
		if w == "--symbolic" || shortFlag(w, "s") {
			return true
		}
	}
	return false
}

// linkTargets records the places symbolic links point to: a relative
// target is taken from the link's own directory, not from where the
// command runs.
func (a *analyzer) linkTargets(targets []string, dest string, toDir bool) {
	dir := dest
	if !toDir && len(targets) == 1 || dest == "" {
		dir = path.Dir(dest)
	}
	if dest == "" && len(targets) > 0 {
		dir = "." // ln -s target: a link in the current directory
	}
	for _, t := range targets {
		if strings.HasPrefix(t, "/") || homePath(t) {
			a.path(t)
		} else {
			a.path(path.Join(dir, t))
		}
	}
}

// network names programs that talk to other machines.
var network = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "ssh": true, "scp": true, "sftp": true,
	"ftp": true, "telnet": true, "http": true, "https": true, "xh": true, "aria2c": true, "socat": true,
}

func (a *analyzer) download(name string, args []string) {
	var short, long string
	switch name {
	case "curl":
		short, long = "-o", "--output"
	case "wget":
		short, long = "-O", "--output-document"
	case "scp":
		if ops := operands(args); len(ops) > 1 && !remote(ops[len(ops)-1]) {
			a.write(ops[len(ops)-1], Target{Create: true})
		}
		return
	default:
		return
	}
	if f, ok := optionArg(args, short, long); ok && f != "-" {
		a.write(f, Target{Create: true})
	}
}

// remote reports whether an scp or rsync operand names another host
// ("host:path", "user@host:path").
func remote(op string) bool {
	colon := strings.IndexByte(op, ':')
	return colon > 0 && !strings.Contains(op[:colon], "/")
}

// installs reports whether the command installs packages.
func installs(name string, args []string) bool {
	ops := operands(args)
	first := func(subs ...string) bool { return len(ops) > 0 && contains(subs, ops[0]) }
	switch name {
	case "pip", "pip3", "pipx":
		return first("install")
	case "python", "python3", "py":
		for i, w := range args {
			if w == "-m" && i+2 < len(args) && (args[i+1] == "pip" || args[i+1] == "ensurepip") {
				return args[i+1] == "ensurepip" || args[i+2] == "install"
			}
		}
	case "npm", "pnpm", "bun":
		return first("install", "i", "add", "ci", "isntall")
	case "yarn":
		return len(ops) == 0 || first("add", "install") || len(ops) > 1 && ops[0] == "global" && ops[1] == "add"
	case "go":
		if first("get") {
			return true
		}
		if first("install") {
			for _, op := range ops[1:] {
				if strings.Contains(op, "@") {
					return true
				}
			}
		}
	case "apt", "apt-get", "yum", "dnf", "zypper", "brew", "port", "snap", "gem", "conda", "mamba",
		"micromamba", "choco", "winget", "scoop", "flatpak":
		return first("install", "in", "reinstall")
	case "apk":
		return first("add")
	case "pacman", "yay", "paru":
		for _, w := range args {
			if len(w) > 1 && w[0] == '-' && w[1] == 'S' {
				return true
			}
		}
	case "cargo", "poetry", "uv", "bundle", "bundler":
		if name == "uv" && len(ops) > 1 && (ops[0] == "pip" || ops[0] == "tool") && ops[1] == "install" {
			return true
		}
		return first("install", "add")
	case "composer":
		return first("require", "install")
	case "dotnet":
		return len(ops) > 1 && ops[0] == "add" && ops[1] == "package"
	case "nix-env":
		return contains(args, "-i") || contains(args, "--install")
	}
	return false
}

// write records a path the command writes, as t says how.
func (a *analyzer) write(w string, t Target) {
	if len(a.res.Writes) >= MaxPaths {
		a.refuseTooLarge(fmt.Sprintf("more than %d paths written", MaxPaths))
		return
	}
	if r, ok := a.resolve(w); ok && r != "" {
		t.Path = path.Clean(r)
		a.res.Writes = append(a.res.Writes, t)
	}
}

// path records w if it names a place outside the starting directory.
func (a *analyzer) path(w string) {
	if eq := strings.IndexByte(w, '='); eq > 0 && !strings.Contains(w[:eq], "/") {
		w = w[eq+1:] // --file=/x, of=/dev/sdb
	} else if strings.HasPrefix(w, "-") {
		return
	}
	if w == "" || !homePath(w) && strings.ContainsAny(w, " \t\n{}|'\"()$`") {
		return
	}
	r, ok := a.resolve(w)
	if !ok {
		return
	}
	if !strings.HasPrefix(r, "/") && !homePath(r) && !climbs(path.Clean(r)) {
		return
	}
	switch {
	case contains(a.res.Paths, r):
	case len(a.res.Paths) >= MaxPaths:
		a.refuseTooLarge(fmt.Sprintf("more than %d paths named outside the directory it starts in", MaxPaths))
	default:
		a.res.Paths = append(a.res.Paths, r)
	}
}

// resolve returns w resolved against the cd's seen so far, or false if a
// cd went somewhere unknown and w is relative.
func (a *analyzer) resolve(w string) (string, bool) {
	if w == "" || strings.HasPrefix(w, "/") || homePath(w) {
		return w, true
	}
	if a.cwdUnknown {
		return "", false
	}
	if a.cwd == "" {
		return w, true
	}
	return path.Join(a.cwd, w), true
}

// wipes reports whether a recursive delete of t destroys the machine, the
// home directory or the workspace, and says which.
func (a *analyzer) wipes(t string) (string, bool) {
	switch {
	case t == "*" || t == ".*":
		t = "."
	case strings.HasSuffix(t, "/*"):
		if t = t[:len(t)-2]; t == "" {
			t = "/"
		}
	}
	switch t {
	case "$PWD", "${PWD}", "$(pwd)", "`pwd`":
		t = "."
	}
	r, ok := a.resolve(t)
	if !ok {
		return "", false
	}
	c := path.Clean(r)
	switch {
	case c == "/":
		return "the root file system", true
	case c == "~" || c == "$HOME" || c == "${HOME}":
		return "the home directory", true
	case homePath(c):
		return "", false
	case !strings.HasPrefix(c, "/"):
		if c == "." || allDotDot(c) {
			return "the workspace root (commands run in it)", true
		}
		return "", false
	case a.root != "" && c == a.root:
		return "the workspace root", true
	case a.root != "" && strings.HasPrefix(a.root, c+"/"):
		return "a directory that holds the workspace", true
	case systemDir(c):
		return "the system directory " + c, true
	}
	return "", false
}

// systemDirs are the directories at the top of a Unix or macOS file
// system whose loss breaks the machine or a user's home.
var systemDirs = map[string]bool{
	"bin": true, "boot": true, "dev": true, "etc": true, "home": true, "lib": true, "lib32": true, "lib64": true,
	"libx32": true, "media": true, "mnt": true, "opt": true, "proc": true, "root": true, "run": true, "sbin": true,
	"snap": true, "srv": true, "sys": true, "usr": true, "var": true,
	"Applications": true, "Library": true, "System": true, "Users": true, "Volumes": true, "private": true,
}

// systemDir reports whether the clean absolute path c is a system
// directory (/usr, /etc, ...), one directly under /usr (/usr/lib,
// /usr/local), or a user's home (/home/dev, /Users/dev).
func systemDir(c string) bool {
	top, rest, nested := strings.Cut(strings.TrimPrefix(c, "/"), "/")
	switch {
	case !strings.HasPrefix(c, "/") || !systemDirs[top]:
		return false
	case !nested:
		return true
	}
	return !strings.Contains(rest, "/") && (top == "usr" || top == "home" || top == "Users")
}

// homePath reports whether p starts in the home directory.
func homePath(p string) bool {
	if strings.HasPrefix(p, "~") {
		return true
	}
	for _, h := range [...]string{"$HOME", "${HOME}"} {
		if rest, ok := strings.CutPrefix(p, h); ok && (rest == "" || rest[0] == '/') {
			return true
		}
	}
	return false
}

func climbs(c string) bool { return c == ".." || strings.HasPrefix(c, "../") }

func allDotDot(c string) bool {
	for _, seg := range strings.Split(c, "/") {
		if seg != ".." {
			return false
		}
	}
	return true
}

// blockDevices are the prefixes of block device paths.
var blockDevices = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme", "/dev/disk", "/dev/rdisk", "/dev/mmcblk"}

// isDevice reports whether p names a block device.
func isDevice(p string) bool {
	c := path.Clean(p)
	for _, d := range blockDevices {
		if strings.HasPrefix(c, d) {
			return true
		}
	}
	return false
}

// forkBomb reports whether s defines a function that pipes itself into
// itself, outside quotes, and names it.
func forkBomb(s string) (string, bool) {
	if !strings.Contains(s, "(") || !strings.Contains(s, "|") {
		return "", false
	}
	// The skeleton: s without blanks and without quoted text, with each
	// newline, which ends a command as ";" does, as a ";".
	sk := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\n':
			sk = append(sk, ';')
		case ' ', '\t', '\r':
		case '\'', '"':
			for i++; i < len(s) && s[i] != c; i++ {
				if c == '"' && s[i] == '\\' {
					i++
				}
			}
		case '\\':
			i++
		default:
			sk = append(sk, c)
		}
	}
	k := string(sk)
	// Each definition's body runs to its first "}" or to the next
	// definition, whichever comes first, so bodies do not overlap and the
	// scan is linear: a line of unclosed definitions is not read once per
	// definition.
	def := strings.Index(k, "(){")
	closing := -1 // the index of a "}" at or after the body, or len(k) if none
	for def >= 0 {
		start := nameStart(k, def)
		next := strings.Index(k[def+3:], "(){")
		end := len(k)
		if next >= 0 {
			next += def + 3
			end = nameStart(k, next)
		}
		if closing < def+3 && closing < len(k) {
			if c := strings.IndexByte(k[def+3:], '}'); c >= 0 {
				closing = def + 3 + c
			} else {
				closing = len(k)
			}
		}
		body := k[def+3 : max(def+3, min(end, closing))]
		for _, name := range []string{k[start:def], strings.TrimPrefix(k[start:def], "function")} {
			if name != "" && callsTwice(body, name) {
				return name, true
			}
		}
		def = next
	}
	return "", false
}

// nameStart returns where the name of the function whose "(){" is at
// k[def] starts.
func nameStart(k string, def int) int {
	start := def
	for start > 0 && !strings.ContainsRune(";&|(){}", rune(k[start-1])) {
		start--
	}
	return start
}

// callsTwice reports whether body contains name|name as whole words.
func callsTwice(body, name string) bool {
	pat := name + "|" + name
	for off := 0; ; {
		i := strings.Index(body[off:], pat)
		if i < 0 {
			return false
		}
		i += off
		before := i == 0 || strings.ContainsRune(";&|(){}", rune(body[i-1]))
		after := i+len(pat) == len(body) || strings.ContainsRune(";&|(){}", rune(body[i+len(pat)]))
		if before && after {
			return true
		}
		off = i + 1
	}
}
