package main

import (
	"context"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
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
	case <-time.After(silentLease + 5*time.Second):
		a.logf("was never cancelled")
	case <-ctx.Done():
	}
	return nil
}

func burster(ctx context.Context, a *actor) error {
	for round, width := range []int{10, 20} {
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
	if err := a.run.Step(ctx, client.Step{Number: int64(a.calls)}); err != nil {
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
