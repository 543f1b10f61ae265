package shell_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/shell"
)

// hostileUnits are pieces of command line that, repeated, made the
// classifier's time grow with the square of the line's length, or could:
// a cd chain grows the working directory every path is resolved against,
// a line of envs made each env search the rest for -S, a line of unclosed
// function definitions made each read the rest as its body.
var hostileUnits = []string{
	"cd a && ", "cd .. && ", "cd $(x) && ", "env a=b ", "env ", "sudo ", "xargs ", "timeout 1 ", "f(){ g|", "f(){ f|f& };",
	"$(", "$(a) ", "`a` ", "<(", "${", "a ", "x; ", "a>b ", "cat <<E\n", "<<E ", "rm -rf ../a ", "((", "{ ", "'a'", `\"`,
	"$'\\x41", "eval x ", "bash -c 'x' ", "git -C a ", "find . -name x ", "ln -s a b ", "x>/a ",
}

// hostileCode are pieces of a program given inline (python -c) that,
// repeated, would make reading the program's calls grow with the square
// of its length if a call's arguments were read to the end of the text.
var hostileCode = []string{"shutil.rmtree(", "os.system(\"", `os.system("x") `, "subprocess.run([", `subprocess.run(["a",`, "rmtree(\"/\" "}

// TestAnalyzeHostileLines: each hostile unit, repeated to a line of 1 MiB
// (sixteen times the default event limit), is classified within a bound
// a hundred times what linear work takes, which a quadratic cost overshoots
// by far: before the fixes a cd chain of 1 MiB took nine minutes, a line
// of unclosed definitions some twenty seconds.
func TestAnalyzeHostileLines(t *testing.T) {
	if testing.Short() {
		t.Skip("classifies lines of 1 MiB")
	}
	const size, bound = 1 << 20, 10 * time.Second
	type hostile struct{ u, line string }
	var lines []hostile
	for _, u := range hostileUnits {
		lines = append(lines, hostile{u, strings.Repeat(u, size/len(u))})
	}
	for _, u := range hostileCode {
		lines = append(lines, hostile{"python3 -c " + u, "python3 -c '" + strings.Repeat(u, size/len(u)) + "'"})
	}
	for _, h := range lines {
		u, line := h.u, h.line
		start := time.Now()
		shell.Analyze(line, ws)
		shell.Commands(line)
		d := time.Since(start)
		t.Logf("%-18q %v", u, d)
		if d > bound {
			t.Errorf("%q repeated to 1 MiB took %v; the bound is %v", u, d, bound)
		}
	}
}

// TestAnalyzeBounds: a cd past MaxPathLen, and more than MaxPaths paths
// written or named, are refused as RuleTooLarge, with the analysis cut
// short; within the bounds nothing is refused.
func TestAnalyzeBounds(t *testing.T) {
	words := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f, i)
		}
		return b.String()
	}
	deep := strings.Repeat("cd d && ", shell.MaxPathLen/2+1) // d/d/...: one byte over
	tests := []struct {
		name, cmd string
		want      shell.Rule
	}{
		{"a cd to a path of MaxPathLen bytes", "cd " + strings.Repeat("d", shell.MaxPathLen-len(ws)-1) + " && ls", ""},
		{"a cd chain past MaxPathLen", deep + "ls", shell.RuleTooLarge},
		{"a cd chain past MaxPathLen, then back up and a wipe", deep + strings.Repeat("cd .. ; ", shell.MaxPathLen/2) + "rm -rf *", shell.RuleTooLarge},
		{"MaxPaths writes", "touch" + words(shell.MaxPaths, " f%d"), ""},
		{"MaxPaths+1 writes", "touch" + words(shell.MaxPaths+1, " f%d"), shell.RuleTooLarge},
		{"MaxPaths paths named", "cat" + words(shell.MaxPaths, " /x/%d"), ""},
		{"MaxPaths+1 paths named", "cat" + words(shell.MaxPaths+1, " /x/%d"), shell.RuleTooLarge},
		{"the same path named many times", "cat" + strings.Repeat(" /etc/passwd", 4*shell.MaxPaths), ""},
		{"a write after many named paths is still seen", "cat" + words(shell.MaxPaths-2, " /ws/%d") + " /etc/shadow > /etc/passwd", ""},
	}
	for _, tt := range tests {
		a := shell.Analyze(tt.cmd, "/ws")
		if a.Danger.Rule != tt.want {
			t.Errorf("%s: rule %q (%s), want %q", tt.name, a.Danger.Rule, a.Danger.What, tt.want)
		}
		if tt.want == shell.RuleTooLarge && (len(a.Writes) > shell.MaxPaths || len(a.Paths) > shell.MaxPaths) {
			t.Errorf("%s: %d writes and %d paths kept", tt.name, len(a.Writes), len(a.Paths))
		}
	}
	a := shell.Analyze("cat"+words(shell.MaxPaths-1, " /ws/%d")+" /etc/shadow", "/ws")
	if got := a.Paths[len(a.Paths)-1]; got != "/etc/shadow" {
		t.Errorf("the last of MaxPaths named paths is %q, want /etc/shadow", got)
	}
}
