package main

import (
	"context"
	"fmt"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
)

// agent is a scripted agent: it runs its script over a run, reporting
// what it does to its transcript.
type agent struct {
	name   string
	about  string
	script func(ctx context.Context, a *actor) error
}

// agents is the demo fleet, in the order the transcripts are printed.
var agents = []agent{
	{"careful", "explores, edits and tests; every call is fine", careful},
	{"looper", "reads the same file again and again", looper},
	{"pingpong", "alternates between two calls", pingpong},
	{"flaky", "keeps calling a build that keeps failing", flaky},
}

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

// actor drives one run and keeps its transcript.
type actor struct {
	run   *client.Run
	calls int
	lines []string
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
	if err := a.run.Step(ctx, int64(a.calls)); err != nil {
		a.logf("step failed: %v", err)
		return false
	}
	id := fmt.Sprintf("c%d", a.calls)
	v, err := a.run.Call(ctx, client.Call{ID: id, Tool: tool, Args: args})
	line := fmt.Sprintf("%-4s %-10s %-44s → %s", id, tool, args, verdict(v))
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
	if v.Kind == event.Stop || v.Kind == event.Reject {
		s += ": " + v.Msg
	}
	return s
}
