package processortest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

var update = flag.Bool("update", false, "rewrite golden files instead of comparing against them")

// Log applies history to a fresh run of c and returns the event→decision
// log: one line per event, and one indented line per decision it drew.
func Log(c *processors.Chain, history []event.Event) string { return LogWith(c, history, nil) }

// LogWith is Log with, after each decision's line, what detail returns for
// it (indented lines, each ending in a newline): for golden files that
// show what the one-line form leaves out. A nil detail adds nothing.
func LogWith(c *processors.Chain, history []event.Event, detail func(*event.Decision) string) string {
	var b strings.Builder
	r := c.NewRun()
	var out processors.Out
	for i := range history {
		ev := history[i]
		fmt.Fprintf(&b, "#%d %s", ev.Seq, ev.Kind)
		switch ev.Kind {
		case event.KindCall:
			fmt.Fprintf(&b, " %s %s %s", ev.Call, ev.Tool, ev.Args)
			if ev.Path != "" {
				fmt.Fprintf(&b, " path=%s", ev.Path)
			}
		case event.KindResult:
			fmt.Fprintf(&b, " %s err=%t %q", ev.Call, ev.Err, ev.Out)
		case event.KindRunEnd:
			fmt.Fprintf(&b, " %s", ev.Status)
		case event.KindStep:
			for _, f := range []struct {
				name string
				v    int64
			}{{"turn", ev.Turn}, {"tin", ev.TokensIn}, {"tout", ev.TokensOut}, {"cost", ev.Cost}, {"ctx", ev.Context}, {"win", ev.Window}} {
				if f.v != 0 {
					fmt.Fprintf(&b, " %s=%d", f.name, f.v)
				}
			}
			if ev.Planning {
				b.WriteString(" plan")
			}
			if ev.DocSchema != "" {
				fmt.Fprintf(&b, " doc=%s %s", ev.DocSchema, ev.Doc)
			}
			if ev.TextDig != "" {
				fmt.Fprintf(&b, " tdig=%s", ev.TextDig)
			}
		case event.KindTurn:
			if ev.Turn != 0 {
				fmt.Fprintf(&b, " %d", ev.Turn)
			}
		case event.KindResume:
			fmt.Fprintf(&b, " by=%s %q", ev.By, ev.Why)
		case event.KindCompact:
			if ev.Context != 0 || ev.Window != 0 {
				fmt.Fprintf(&b, " ctx=%d win=%d", ev.Context, ev.Window)
			}
		case event.KindTimer:
			fmt.Fprintf(&b, " %s gen=%d", ev.Timer, ev.Gen)
		case event.KindRound:
			fmt.Fprintf(&b, " %v wait=%d", ev.Calls, ev.Wait)
		}
		b.WriteByte('\n')
		c.Apply(r, &ev, &out)
		for j := range out.Decisions {
			fmt.Fprintf(&b, "    → %s\n", String(&out.Decisions[j]))
			if detail != nil {
				b.WriteString(detail(&out.Decisions[j]))
			}
		}
		for _, t := range out.Timers {
			if t.After < 0 {
				fmt.Fprintf(&b, "    ⏲ cancel %s\n", t.Name)
			} else {
				fmt.Fprintf(&b, "    ⏲ set %s in %dms gen=%d\n", t.Name, t.After, t.Gen)
			}
		}
	}
	return b.String()
}

// Golden compares the log of history in c with testdata/<name>.golden, or
// rewrites the file when the test runs with -update.
func Golden(t *testing.T, c *processors.Chain, history []event.Event, name string) {
	t.Helper()
	GoldenFile(t, filepath.Join("testdata", name+".golden"), Log(c, history))
}

// GoldenFile compares got with the file at path, or rewrites the file when
// the test runs with -update: for golden files of any other form.
func GoldenFile(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run the test with -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run with -update to accept, then review the diff):\n--- got\n%s--- want\n%s", path, got, want)
	}
}
