package antipattern

import (
	"path"
	"slices"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/internal/exitcode"
	"github.com/guardstream/guardstream/internal/shell"
	"github.com/guardstream/guardstream/internal/workspace"
)

// readCommand fills in what the shell command cmd of a pending call does
// to the work, how its exit status reads, and what it would verify, and
// reports whether it reads files (cat, grep, ...).
func (d *Detector) readCommand(s *State, p *Pending, cmd string) (reads bool) {
	root := workspace.NewRoot(s.Workspace)
	a := shell.Analyze(cmd, root.Dir())
	d.readEdits(s, p, root, a.Edits)
	if a.Ops.Has(shell.OpRevert) {
		p.Effect |= EffectRevert
	}
	if a.Ops.Has(shell.OpUnstash) {
		p.Effect |= EffectRestore
	}
	if a.Ops.Has(shell.OpPatch) || a.Ops.Has(shell.OpUnstash) {
		p.Effect |= EffectChange
	}
	for _, t := range a.Writes {
		rel, inside := root.Rel(t.Path)
		switch {
		case !inside || rel == "":
			// Outside the workspace (/tmp, /dev/null): not the work.
		case t.Delete:
			p.Removed = appendPath(p.Removed, rel)
		default:
			p.Written = appendPath(p.Written, rel)
			if t.Create && !slices.Contains(s.Scratch, rel) {
				p.Created = appendPath(p.Created, rel)
			}
		}
	}
	cmds := shell.Commands(cmd)
	if len(cmds) > 0 {
		p.Kind = uint8(exitcode.OfArgv(cmds[len(cmds)-1]))
	}
	p.Sig, p.Operands = ran(cmds)
	for _, argv := range cmds {
		reads = reads || readers[path.Base(argv[0])]
	}
	return reads
}

// readers are the commands that show what files hold.
var readers = map[string]bool{
	"cat": true, "nl": true, "head": true, "tail": true, "less": true, "more": true, "bat": true, "view": true,
	"grep": true, "egrep": true, "fgrep": true, "rg": true, "ag": true, "ack": true, "sed": true, "awk": true,
}

// appendPath adds p to list, up to MaxCallPaths paths; past them, the
// list ends in "" to say that more were left out.
func appendPath(list []string, p string) []string {
	switch {
	case slices.Contains(list, p):
	case len(list) < MaxCallPaths:
		list = append(list, p)
	case list[len(list)-1] != "":
		list[len(list)-1] = ""
	}
	return list
}

// ran returns the signature of the test run among a command line's simple
// commands (its first test runner's words, or the last command's if none
// runs tests) and the operands of that test runner, or of every command
// but cd when none runs tests: the files and test names it ran.
func ran(cmds [][]string) (uint64, []string) {
	if len(cmds) == 0 {
		return 0, nil
	}
	runner, test := cmds[len(cmds)-1], false
	for _, argv := range cmds {
		if exitcode.OfArgv(argv).IsTest() {
			runner, test = argv, true
			break
		}
	}
	h := xxhash.New()
	for _, w := range runner {
		_, _ = h.WriteString(w)
		_, _ = h.Write([]byte{0})
	}
	if test {
		cmds = [][]string{runner}
	}
	var ops []string
	for _, argv := range cmds {
		if name := path.Base(argv[0]); name == "cd" || name == "pushd" {
			continue // where it ran, not what
		}
		for i := 1; i < len(argv) && len(ops) < MaxOperands; i++ {
			w := argv[i]
			switch {
			case valueOptions[w]:
				i++
			case strings.HasPrefix(w, "-") || len(w) < 4 || len(w) > 256 || ignoredOperands[w]:
			default:
				w = strings.TrimPrefix(w, "./")
				if !slices.Contains(ops, w) && w != path.Base(argv[0]) {
					ops = append(ops, w)
				}
			}
		}
	}
	return h.Sum64(), ops
}

// valueOptions take the next word as their value, which is not a file or
// a test the command runs.
var valueOptions = map[string]bool{
	"-k": true, "-m": true, "-p": true, "-n": true, "-c": true, "-o": true, "-W": true, "-e": true,
	"--settings": true, "--parallel": true, "--tb": true, "--durations": true, "-r": true,
}

// ignoredOperands are words of test commands that name no test.
var ignoredOperands = map[string]bool{"test": true, "pytest": true, "unittest": true}

// mentions reports whether a call's arguments name one of the operands of
// the failed verification v: the failing test file, or a test label.
func mentions(args string, v *Verification) bool {
	for _, op := range v.Operands {
		if strings.Contains(args, op) {
			return true
		}
	}
	return false
}
