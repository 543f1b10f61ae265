package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// agent is a scripted agent: it runs its script over a run, reporting
// what it does to its transcript.
type agent struct {
	name   string
	about  string
	spec   client.RunSpec
	script func(ctx context.Context, a *actor) error
}

// silentLease is the lease of the agent that goes silent: short, so the
// demo does not wait long for the guard to notice.
const silentLease = 2 * time.Second

// agents is the demo fleet, in the order the transcripts are printed.
var agents = []agent{
	{"careful", "explores, edits and tests; every call is fine", client.RunSpec{}, careful},
	{"looper", "reads the same file again and again", client.RunSpec{}, looper},
	{"pingpong", "alternates between two calls", client.RunSpec{}, pingpong},
	{"flaky", "keeps calling a build that keeps failing", client.RunSpec{}, flaky},
	{"silent", "holds a 2s lease, heartbeats while it works, then hangs", client.RunSpec{Lease: silentLease, ManualHeartbeat: true}, silent},
	{"burster", "fires wider and wider parallel rounds", client.RunSpec{}, burster},
	{"sloppy", "gets tool arguments wrong, then right", client.RunSpec{Tools: sloppyTools}, sloppy},
	{"trespasser", "reaches for protected paths and destructive commands", client.RunSpec{Workspace: "/work/app"}, trespasser},
	{"reader", "reads a 20,000-line file, then its second page", client.RunSpec{Workspace: "/work/app"}, reader},
	{"fanner", "fires a parallel round whose results come back out of order", client.RunSpec{}, fanner},
}

var sloppyTools = []event.Schema{{
	Name:   "read_file",
	Schema: `{"type":"object","properties":{"path":{"type":"string"},"limit":{"type":"integer"}},"required":["path"],"additionalProperties":false}`,
}}

func careful(ctx context.Context, a *actor) error {
	steps := []struct{ tool, args, out string }{
		{"list_dir", `{"path":"."}`, "main.go go.mod README.md"},
		{"read_file", `{"path":"main.go"}`, "package main ..."},
		{"read_file", `{"path":"go.mod"}`, "module example"},
		{"edit_file", `{"path":"main.go","old":"Hello","new":"Hello, world"}`, "1 hunk applied"},
		{"run_tests", `{"pkg":"./..."}`, "ok"},
	}
	for _, s := range steps {
		if !a.call(ctx, s.tool, s.args, false, s.out) {
			return nil
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func looper(ctx context.Context, a *actor) error {
	for range 8 {
		if !a.call(ctx, "read_file", `{"path":"config.yaml"}`, false, "port: 8080") {
			return nil
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func pingpong(ctx context.Context, a *actor) error {
	for i := range 8 {
		tool := map[bool]string{true: "git_status", false: "git_diff"}[i%2 == 0]
		if !a.call(ctx, tool, `{}`, false, "nothing to commit") {
			return nil
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func flaky(ctx context.Context, a *actor) error {
	for i := range 8 {
		if !a.call(ctx, "run_build", fmt.Sprintf(`{"target":"app","attempt":%d}`, i+1), true, "error: undefined: Foo") {
			return nil
		}
	}
	return a.end(ctx, event.StatusFailed)
}

func silent(ctx context.Context, a *actor) error {
	for i := range 2 {
		if err := a.run.Heartbeat(ctx); err != nil {
			return err
		}
		a.logf("heartbeat")
		if !a.call(ctx, "read_file", fmt.Sprintf(`{"path":"part%d.txt"}`, i), false, "...") {
			return nil
		}
	}
	a.logf("hangs: no more heartbeats")
	hung := time.Now()
	select {
	case <-a.run.Done():
		a.logf("cancelled by the guard %v after its last heartbeat", time.Since(hung).Round(100*time.Millisecond))
	case <-time.After(silentLease + a.patience):
		a.logf("was never cancelled")
	case <-ctx.Done():
	}
	return nil
}

func burster(ctx context.Context, a *actor) error {
	for round, width := range []int{10, 40} {
		if err := a.run.Step(ctx, client.Step{Number: int64(round + 1), Turn: 1}); err != nil {
			return err
		}
		var running, waiting []client.Verdict
		for i := range width {
			a.calls++
			id := fmt.Sprintf("c%d", a.calls)
			v, err := a.run.Call(ctx, client.Call{ID: id, Tool: "fetch_page", Args: fmt.Sprintf(`{"page":%d}`, a.calls)})
			if err != nil {
				return err
			}
			switch {
			case v.Kind == event.Stop:
				a.logf("%-4s fetch_page (call %d of the round) → %s", id, i+1, verdict(v))
				return nil
			case v.Deferred():
				waiting = append(waiting, v)
			case v.Allowed():
				running = append(running, v)
			}
		}
		a.logf("round %d: %d calls allowed, %d deferred", round+1, len(running), len(waiting))
		for len(running) > 0 {
			done := running[0]
			running = running[1:]
			if err := a.run.Result(ctx, client.Result{Call: done.Call, Out: "<html>"}); err != nil {
				return err
			}
			if len(waiting) > 0 {
				rel, err := a.run.Await(ctx, waiting[0])
				if err != nil {
					return err
				}
				a.logf("     %s returned, %s released → %s", done.Call, rel.Call, verdict(rel))
				waiting = waiting[1:]
				running = append(running, rel)
			}
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func sloppy(ctx context.Context, a *actor) error {
	for _, args := range []string{
		`{"file_path":"main.go","limit":"40"}`, // repairable: renamed key, quoted number
		`{"path":42}`,                          // not repairable: the wrong type
		`{"path":"main.go","limit":40}`,        // corrected
	} {
		if !a.call(ctx, "read_file", args, false, "package main") {
			return nil
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func trespasser(ctx context.Context, a *actor) error {
	for _, c := range []struct{ tool, args string }{
		{"edit_file", `{"path":".git/config","old":"[core]","new":"[core]\n\thooksPath = /tmp/x"}`},
		{"bash", `{"command":"rm -rf / --no-preserve-root"}`},
		{"bash", `{"command":"rm -rf ./build"}`},
		{"edit_file", `{"path":"/work/app/pkg/auth_test.go","old":"want := 3","new":"want := 4"}`},
		{"read_file", `{"path":"../../etc/passwd"}`},
	} {
		if !a.call(ctx, c.tool, c.args, false, "done") {
			return nil
		}
	}
	return a.end(ctx, event.StatusCompleted)
}

func reader(ctx context.Context, a *actor) error {
	var file strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&file, "/work/app/logs/app.log:%d: request %d served in %dms\n", i, i, i%97)
	}
	a.calls++
	id := fmt.Sprintf("c%d", a.calls)
	v, err := a.run.Call(ctx, client.Call{ID: id, Tool: "read_file", Args: `{"path":"logs/app.log"}`})
	if err != nil || !v.Allowed() {
		a.logf("%-4s read_file → %s (%v)", id, verdict(v), err)
		return err
	}
	if err := a.run.Result(ctx, client.Result{Call: id, Out: file.String()}); err != nil {
		return err
	}
	out, err := a.run.Output(ctx, id)
	if err != nil {
		return err
	}
	t := out.Trunc
	a.logf("%-4s read_file  %d bytes, %d lines → the model sees %d lines, has_more=%t, %d remaining, workspace paths made relative:",
		id, t.TotalBytes, t.TotalLines, t.LinesShown, t.HasMore, t.LinesRemaining)
	lines := strings.Split(strings.TrimRight(out.View, "\n"), "\n")
	a.logf("       %s", lines[0])
	a.logf("       %s", lines[len(lines)-1])
	page, err := a.run.Page(ctx, *out.Ref, t.LinesShown, view.Options{MaxLines: 3, Workspace: "/work/app"})
	if err != nil {
		return err
	}
	a.logf("     page 2 from the object store, without running the tool again:")
	for _, l := range strings.Split(strings.TrimRight(page.Text, "\n"), "\n") {
		a.logf("       %s", l)
	}
	return a.end(ctx, event.StatusCompleted)
}

func fanner(ctx context.Context, a *actor) error {
	ids := []string{"q1", "q2", "q3", "q4"}
	if err := a.run.Round(ctx, ids, 10*time.Second); err != nil {
		return err
	}
	for i, id := range ids {
		v, err := a.run.Call(ctx, client.Call{ID: id, Tool: "web_search", Args: fmt.Sprintf(`{"q":"topic %d"}`, i+1)})
		if err != nil || !v.Allowed() {
			return err
		}
	}
	order := []string{"q3", "q1", "q4", "q2"}
	for _, id := range order {
		if err := a.run.Result(ctx, client.Result{Call: id, Out: "results for " + id}); err != nil {
			return err
		}
	}
	a.logf("round of %v; results returned in the order %v", ids, order)
	d, err := a.run.Settled(ctx, "q1")
	if err != nil {
		return err
	}
	a.logf("     settled once, in call order: %v (missing: %d)", d.Calls, len(d.Missing))
	return a.end(ctx, event.StatusCompleted)
}

// actor drives one run and keeps its transcript.
type actor struct {
	run      *client.Run
	patience time.Duration // how long to wait for the guard: the verdict timeout
	calls    int
	lines    []string
}

// call checks a call with the guard and, if allowed, reports its result.
// It reports whether the agent may go on.
func (a *actor) call(ctx context.Context, tool, args string, fails bool, out string) bool {
	a.advice()
	select {
	case <-a.run.Done():
		return false
	default:
	}
	a.calls++
	if err := a.run.Step(ctx, client.Step{Number: int64(a.calls)}); err != nil {
		a.logf("step failed: %v", err)
		return false
	}
	id := fmt.Sprintf("c%d", a.calls)
	v, err := a.run.Call(ctx, client.Call{ID: id, Tool: tool, Args: args})
	line := fmt.Sprintf("%-4s %-10s %-44s → %s", id, tool, args, verdict(v))
	if v.Kind == event.Repair {
		line += " " + v.Args
	}
	if err != nil {
		line += fmt.Sprintf(" (%v)", err)
	}
	a.lines = append(a.lines, line)
	a.advice()
	if v.Kind == event.Stop {
		return false
	}
	if !v.Allowed() {
		return true
	}
	if err := a.run.Result(ctx, client.Result{Call: v.Call, Err: fails, Out: out}); err != nil {
		a.logf("result failed: %v", err)
		return false
	}
	return true
}

func (a *actor) end(ctx context.Context, status event.Status) error {
	a.advice()
	a.logf("ends the run: %s", status)
	return a.run.End(ctx, status)
}

// advice moves the advice that has arrived into the transcript.
func (a *actor) advice() {
	for {
		select {
		case d := <-a.run.Advice():
			a.logf("     advice %-13s %s", d.Steer.Kind, d.Msg)
		default:
			return
		}
	}
}

func (a *actor) logf(format string, args ...any) {
	a.lines = append(a.lines, fmt.Sprintf(format, args...))
}

func verdict(v client.Verdict) string {
	s := v.Kind.String()
	if v.Reason != "" {
		s += " " + string(v.Reason)
	}
	if v.Reason != "" && v.Rule != v.Guard { // why a call was refused: a rule of its own, such as identical_call
		s += " (" + v.Rule + ")"
	}
	if v.Kind == event.Stop || v.Kind == event.Reject {
		s += ": " + v.Msg
	}
	return s
}
