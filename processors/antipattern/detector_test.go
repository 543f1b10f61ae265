package antipattern_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/antipattern"
	"github.com/guardstream/guardstream/processors/processortest"
)

const ws = "/home/dev/proj"

// run is a history builder with the results and steps these tests need.
type run struct{ *processortest.History }

func newRun(name string, outputs ...string) run {
	h := processortest.NewHistory("acme", name)
	h.Events()[0].Workspace, h.Events()[0].Outputs = ws, outputs
	return run{h}
}

// result appends the result of the last call.
func (r run) result(ev event.Event) run {
	ev.Kind = event.KindResult
	for _, c := range r.Events() {
		if c.Kind == event.KindCall {
			ev.Call = c.Call
		}
	}
	r.Add(ev)
	return r
}

// verify appends a test run and its result with the given exit code.
func (r run) verify(exit int64) run {
	r.Call("bash", `{"command":"go test ./..."}`)
	return r.result(event.Event{Verify: true, Exit: exit, Out: "test output"})
}

// edit appends an edit of path and its successful result.
func (r run) edit(path string) run {
	r.Call("edit_file", fmt.Sprintf(`{"path":%q}`, path))
	return r.result(event.Event{Out: "ok"})
}

func (r run) plan(n int) run {
	for range n {
		r.Add(event.Event{Kind: event.KindStep, Planning: true})
	}
	return r
}

func (r run) end(status event.Status) run {
	r.End(status)
	return r
}

// summary renders decisions compactly: "advise:commit_plan",
// "stop:PLANNING_LOOP(failed)".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		s := processortest.Brief(&d)
		if d.Outcome != "" {
			s += "(" + string(d.Outcome) + ")"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// policyWith returns the default policy changed by mod, if any.
func policyWith(mod func(*antipattern.Policy)) antipattern.Policy {
	p := antipattern.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

// decide applies the history and returns each event's decisions other than
// plain allows, keyed by sequence, and the messages.
func decide(t *testing.T, p antipattern.Policy, r run) (map[int64]string, []string) {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	c := processors.NewChain(antipattern.New(p))
	st := c.NewRun()
	var out processors.Out
	got := map[int64]string{}
	var msgs []string
	for _, ev := range r.Events() {
		c.Apply(st, &ev, &out)
		if s := summary(out.Decisions); s != "" && s != "allow" {
			got[ev.Seq] = s
		}
		for _, d := range out.Decisions {
			if d.Msg != "" {
				msgs = append(msgs, d.Msg)
			}
		}
	}
	return got, msgs
}

// declaredKinds is a run that declares an editor (compose) and a viewer
// (preview) by their kinds, promises docs/report.md, calls tool on it and
// claims success.
func declaredKinds(tool string) run {
	r := newRun("r", "docs/report.md")
	r.Events()[0].Tools = []event.Schema{{Name: "compose", Kind: event.ToolEdit}, {Name: "preview", Kind: event.ToolRead}}
	r.Call(tool, `{"path":"docs/report.md"}`)
	return r.result(event.Event{Out: "ok"}).end(event.StatusCompleted)
}

func TestHallucinatedSuccess(t *testing.T) {
	tests := []struct {
		name   string
		policy func(*antipattern.Policy)
		run    run
		want   string // the decisions of the run end
		msg    string
	}{
		{name: "last verification failed", run: newRun("r").edit("a.go").verify(1).end(event.StatusCompleted),
			want: "stop:HALLUCINATED_SUCCESS(failed)",
			msg:  "the run claimed success, but its last verification failed: call c2 (bash) exited with code 1; its outcome is overridden to failed"},
		{name: "verification error without an exit code", run: newRun("r").edit("a.go").result(event.Event{Verify: true, Err: true}).end(event.StatusCompleted),
			want: "stop:HALLUCINATED_SUCCESS(failed)", msg: "reported an error"},
		{name: "a later passing verification clears it", run: newRun("r").verify(1).edit("a.go").verify(0).end(event.StatusCompleted), want: ""},
		{name: "a later failing verification counts", run: newRun("r").verify(0).edit("a.go").verify(2).end(event.StatusCompleted),
			want: "stop:HALLUCINATED_SUCCESS(failed)", msg: "exited with code 2"},
		{name: "a failing non-verifying result does not count", run: func() run {
			r := newRun("r").verify(0)
			r.Call("bash", `{"command":"ls nope"}`)
			return r.result(event.Event{Exit: 2}).end(event.StatusCompleted)
		}(), want: ""},
		{name: "no verification at all", run: newRun("r").edit("a.go").end(event.StatusCompleted), want: ""},
		{name: "an honest failure is left alone", run: newRun("r").verify(1).end(event.StatusFailed), want: ""},
		{name: "cancelled is left alone", run: newRun("r").verify(1).end(event.StatusCancelled), want: ""},
		{name: "promised outputs produced by chg and by write calls", run: func() run {
			r := newRun("r", "dist/app", ws+"/docs/api.md", "build/")
			r.Call("bash", `{"command":"make"}`)
			r.result(event.Event{Changes: &event.Changes{Paths: []string{ws + "/dist/app", "build/x.o"}}})
			return r.edit("docs/api.md").end(event.StatusCompleted)
		}(), want: ""},
		{name: "a promised output missing", run: newRun("r", "dist/app", "docs/api.md").edit("docs/api.md").end(event.StatusCompleted),
			want: "stop:HALLUCINATED_SUCCESS(failed)",
			msg:  "the run claimed success, but 1 of 2 promised outputs were never produced: dist/app; its outcome is overridden to failed"},
		{name: "a failed write does not produce", run: func() run {
			r := newRun("r", "out.txt")
			r.Call("write_file", `{"path":"out.txt"}`)
			return r.result(event.Event{Err: true}).end(event.StatusCompleted)
		}(), want: "stop:HALLUCINATED_SUCCESS(failed)"},
		{name: "an abandoned write does not produce", run: func() run {
			r := newRun("r", "out.txt")
			r.Call("write_file", `{"path":"out.txt"}`)
			return r.result(event.Event{Tool: "write_file", Path: "out.txt", Abandoned: true}).end(event.StatusCompleted)
		}(), want: "stop:HALLUCINATED_SUCCESS(failed)"},
		{name: "a read does not produce", run: func() run {
			r := newRun("r", "out.txt")
			r.Call("read_file", `{"path":"out.txt"}`)
			return r.result(event.Event{Out: "x"}).end(event.StatusCompleted)
		}(), want: "stop:HALLUCINATED_SUCCESS(failed)"},
		{name: "the path field and nested path keys of a write", run: func() run {
			r := newRun("r", "a.txt", "b.txt")
			r.Add(event.Event{Kind: event.KindCall, Call: "w1", Tool: "write_file", Path: "a.txt"})
			r.ResultOf("w1", false, "ok")
			r.Call("multi_edit", `{"edits":[{"file_path":"./b.txt"}]}`)
			return r.result(event.Event{Out: "ok"}).end(event.StatusCompleted)
		}(), want: ""},
		{name: "a patch that adds the output", run: func() run {
			r := newRun("r", "docs/new.md")
			r.Call("apply_patch", `{"input":"*** Begin Patch\n*** Add File: docs/new.md\n+# New\n*** End Patch"}`)
			return r.result(event.Event{Out: "ok"}).end(event.StatusCompleted)
		}(), want: ""},
		{name: "a patch that deletes the output does not produce it", run: func() run {
			r := newRun("r", "docs/new.md")
			r.Call("apply_patch", `{"input":"*** Begin Patch\n*** Delete File: docs/new.md\n*** End Patch"}`)
			return r.result(event.Event{Out: "ok"}).end(event.StatusCompleted)
		}(), want: "stop:HALLUCINATED_SUCCESS(failed)"},
		{name: "a tool declared of kind edit produces", run: declaredKinds("compose"), want: ""},
		{name: "a tool declared of kind read does not produce", run: declaredKinds("preview"), want: "stop:HALLUCINATED_SUCCESS(failed)"},
		{name: "a result that names its own tool and path", run: func() run {
			r := newRun("r", "a.txt")
			r.Add(event.Event{Kind: event.KindResult, Call: "x1", Tool: "write_file", Path: ws + "/a.txt"})
			return r.end(event.StatusCompleted)
		}(), want: ""},
		{name: "both", run: newRun("r", "x", "y", "z").verify(1).end(event.StatusCompleted),
			want: "stop:HALLUCINATED_SUCCESS(failed)",
			msg:  "its last verification failed: call c1 (bash) exited with code 1; and 3 of 3 promised outputs were never produced: x, y, z"},
		{name: "off", policy: func(p *antipattern.Policy) { p.HallucinatedSuccess = false },
			run: newRun("r", "x").verify(1).end(event.StatusCompleted), want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, msgs := decide(t, policyWith(tt.policy), tt.run)
			last := tt.run.Events()[len(tt.run.Events())-1].Seq
			if got[last] != tt.want {
				t.Errorf("run end: got %q, want %q (all: %v)", got[last], tt.want, got)
			}
			delete(got, last)
			if len(got) != 0 {
				t.Errorf("decisions before the end: %v", got)
			}
			if tt.msg != "" && (len(msgs) == 0 || !strings.Contains(msgs[len(msgs)-1], tt.msg)) {
				t.Errorf("message %q does not contain %q", msgs, tt.msg)
			}
		})
	}
}

func TestPlanningLoop(t *testing.T) {
	tests := []struct {
		name   string
		policy func(*antipattern.Policy)
		run    run
		want   map[int64]string
	}{
		{name: "advise on the 4th, stop at the 5th", run: newRun("r").plan(5),
			want: map[int64]string{5: "advise:commit_plan", 6: "stop:PLANNING_LOOP(failed)"}},
		{name: "three are fine", run: newRun("r").plan(3).edit("a.go").plan(3), want: map[int64]string{}},
		{name: "acting steps neither count nor reset", run: func() run {
			r := newRun("r").plan(2)
			r.Step()
			r.plan(2)
			r.Step()
			return r.plan(1)
		}(), want: map[int64]string{6: "advise:commit_plan", 8: "stop:PLANNING_LOOP(failed)"}},
		{name: "a change resets the count and re-arms the advice", run: newRun("r").plan(4).edit("a.go").plan(4),
			want: map[int64]string{5: "advise:commit_plan", 11: "advise:commit_plan"}},
		{name: "a result with changes resets", run: func() run {
			r := newRun("r").plan(4)
			r.Call("bash", `{"command":"patch -p1 < x.diff"}`)
			return r.result(event.Event{Changes: &event.Changes{Lines: 3}}).plan(4)
		}(), want: map[int64]string{5: "advise:commit_plan", 11: "advise:commit_plan"}},
		{name: "an abandoned edit does not reset", run: func() run {
			r := newRun("r").plan(4)
			r.Call("edit_file", `{"path":"a.go"}`)
			return r.result(event.Event{Abandoned: true}).plan(1)
		}(), want: map[int64]string{5: "advise:commit_plan", 8: "stop:PLANNING_LOOP(failed)"}},
		{name: "a failed edit does not reset", run: func() run {
			r := newRun("r").plan(4)
			r.Call("edit_file", `{"path":"a.go"}`)
			return r.result(event.Event{Err: true}).plan(1)
		}(), want: map[int64]string{5: "advise:commit_plan", 8: "stop:PLANNING_LOOP(failed)"}},
		{name: "empty changes do not reset", run: func() run {
			r := newRun("r").plan(4)
			r.Call("bash", `{"command":"true"}`)
			return r.result(event.Event{Changes: &event.Changes{}}).plan(1)
		}(), want: map[int64]string{5: "advise:commit_plan", 8: "stop:PLANNING_LOOP(failed)"}},
		{name: "a read does not reset", run: func() run {
			r := newRun("r").plan(4)
			r.Call("read_file", `{"path":"a.go"}`)
			return r.result(event.Event{Out: "x"}).plan(1)
		}(), want: map[int64]string{5: "advise:commit_plan", 8: "stop:PLANNING_LOOP(failed)"}},
		{name: "thresholds", policy: func(p *antipattern.Policy) { p.PlanningAdvise, p.PlanningStop = 1, 3 },
			run: newRun("r").plan(3), want: map[int64]string{3: "advise:commit_plan", 4: "stop:PLANNING_LOOP(failed)"}},
		{name: "off", policy: func(p *antipattern.Policy) { p.PlanningAdvise, p.PlanningStop = 0, 0 },
			run: newRun("r").plan(20), want: map[int64]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := decide(t, policyWith(tt.policy), tt.run)
			for seq := int64(1); seq <= int64(len(tt.run.Events())); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &tt.run.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}
}

func TestPendingIsBounded(t *testing.T) {
	r := newRun("r", "out.txt")
	r.Call("write_file", `{"path":"out.txt"}`)
	for range antipattern.MaxPending {
		r.Call("read_file", `{"path":"x"}`)
	}
	r.ResultOf("c1", false, "ok") // its call was evicted: not recognised
	c := processors.NewChain(antipattern.New(antipattern.DefaultPolicy()))
	st := c.NewRun()
	var out processors.Out
	for _, ev := range r.Events() {
		c.Apply(st, &ev, &out)
	}
	s := st.Parts[0].(*antipattern.State)
	if len(s.Pending) != antipattern.MaxPending || len(s.Missing) != 1 {
		t.Errorf("pending %d (want %d), missing %q (want out.txt)", len(s.Pending), antipattern.MaxPending, s.Missing)
	}
}

// pytest appends a test run of the selection k whose tests fail, or pass.
func (r run) pytest(k string, exit int64) run {
	r.Call("bash", fmt.Sprintf(`{"command":"python -m pytest tests/test_core.py -k %s"}`, k))
	return r.result(event.Event{Verify: true, Err: exit != 0, Exit: exit, Out: "1 failed, 3 passed in 0.2s"})
}

// sh appends a shell command and its successful result.
func (r run) sh(cmd string) run {
	r.Call("bash", fmt.Sprintf(`{"command":%q}`, cmd))
	return r.result(event.Event{Out: "ok"})
}

// TestRetest: failing test runs with nothing changed between them are
// advised at the 3rd and stopped at the 6th; reading files between them
// changes nothing, an edit of the work or a passing run starts the count
// again, and a test runner that could not run is the loop guard's to
// count.
func TestRetest(t *testing.T) {
	fails := func(r run, from, n int) run {
		for i := from; i < from+n; i++ {
			r.pytest(fmt.Sprint("case_", i), 1)
		}
		return r
	}
	tests := []struct {
		name   string
		policy func(*antipattern.Policy)
		run    run
		want   []string // the decisions, in order
	}{
		{name: "ten failing selections", run: fails(newRun("r"), 1, 10),
			want: []string{"advise:read_errors", "stop:TOO_MANY_MISTAKES(failed)"}},
		{name: "reads between them", run: func() run {
			r := newRun("r")
			for i := range 6 {
				r.pytest(fmt.Sprint("case_", i), 1).sh("cat tests/test_core.py")
			}
			return r
		}(), want: []string{"advise:read_errors", "stop:TOO_MANY_MISTAKES(failed)"}},
		{name: "a log the run writes is its own", run: func() run {
			r := newRun("r")
			for i := range 6 {
				r.Call("bash", fmt.Sprintf(`{"command":"python -m pytest -k case_%d > pytest.log 2>&1"}`, i))
				r.result(event.Event{Verify: true, Err: true, Exit: 1, Out: "1 failed"})
			}
			return r
		}(), want: []string{"advise:read_errors", "stop:TOO_MANY_MISTAKES(failed)"}},
		{name: "an edit between them", run: fails(fails(newRun("r"), 1, 4).edit("src/core.py"), 5, 5),
			want: []string{"advise:read_errors", "advise:read_errors"}},
		{name: "a sed between them", run: fails(fails(newRun("r"), 1, 5).sh("sed -i 's/a/b/' src/core.py"), 6, 5),
			want: []string{"advise:read_errors", "advise:read_errors"}},
		{name: "a passing run between them", run: fails(fails(newRun("r"), 1, 5).pytest("case_1", 0), 6, 5),
			want: []string{"advise:read_errors", "advise:read_errors"}},
		{name: "runs that could not run", run: func() run {
			r := newRun("r")
			for range 7 {
				r.Call("bash", `{"command":"pytest tests/"}`)
				r.result(event.Event{Verify: true, Err: true, Exit: 127, Out: "bash: pytest: command not found"})
			}
			return r
		}()},
		{name: "off", policy: func(p *antipattern.Policy) { p.RetestAdvise, p.RetestStop = 0, 0 }, run: fails(newRun("r"), 1, 10)},
		{name: "advice only", policy: func(p *antipattern.Policy) { p.RetestStop = 0 }, run: fails(newRun("r"), 1, 10),
			want: []string{"advise:read_errors"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := decide(t, policyWith(tt.policy), tt.run)
			var seqs []int64
			for seq := range got {
				seqs = append(seqs, seq)
			}
			slices.Sort(seqs)
			var ds []string
			for _, seq := range seqs {
				ds = append(ds, got[seq])
				if strings.HasPrefix(got[seq], "stop:") {
					break // the chain refuses what comes after a stop
				}
			}
			if !slices.Equal(ds, tt.want) {
				t.Errorf("decisions %q, want %q", ds, tt.want)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	if err := antipattern.DefaultPolicy().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*antipattern.Policy){
		"negative":                  func(p *antipattern.Policy) { p.PlanningStop = -1 },
		"advice not before a stop":  func(p *antipattern.Policy) { p.PlanningAdvise, p.PlanningStop = 4, 5 },
		"negative retests":          func(p *antipattern.Policy) { p.RetestAdvise = -1 },
		"retest advice at the stop": func(p *antipattern.Policy) { p.RetestAdvise, p.RetestStop = 6, 6 },
	} {
		p := antipattern.DefaultPolicy()
		mod(&p)
		if p.Validate() == nil {
			t.Errorf("%s: Validate accepted it", name)
		}
	}
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]run {
	hs := map[string]run{}
	r := newRun("verify", "cmd/app/main.go")
	r.edit("cmd/app/main.go")
	r.Add(event.Event{Kind: event.KindStep, Step: 3})
	hs["hallucinated-verify"] = r.edit("cmd/app/util.go").verify(1).end(event.StatusCompleted)
	r = newRun("stale", "cmd/app/main.go")
	r.edit("cmd/app/main.go").verify(1)
	r.Add(event.Event{Kind: event.KindStep, Step: 3})
	hs["stale-verify"] = r.edit("cmd/app/util.go").end(event.StatusCompleted) // changed since the failure: no verdict

	r = newRun("outputs", "dist/app.js", "docs/API.md", "CHANGELOG.md")
	r.Call("bash", `{"command":"npm run build"}`)
	r.result(event.Event{Changes: &event.Changes{Files: 1, Paths: []string{ws + "/dist/app.js"}}})
	hs["missing-outputs"] = r.verify(0).end(event.StatusCompleted)

	r = newRun("retest")
	for i := range 4 {
		r.pytest(fmt.Sprint("case_", i), 1)
	}
	r.edit("src/core.py")
	for i := range 6 {
		r.pytest(fmt.Sprint("case_", i), 1)
	}
	hs["retest"] = r

	r = newRun("planning")
	r.plan(4).edit("a.go").plan(3)
	r.Step()
	r.plan(2).Call("read_file", `{"path":"a.go"}`)
	hs["planning-loop"] = r

	r = newRun("honest", "out/report.json")
	r.plan(2).edit("src/x.go").verify(1).edit("src/x.go").verify(0)
	r.Call("write_file", `{"path":"out/report.json"}`)
	hs["honest-run"] = r.result(event.Event{Out: "ok"}).end(event.StatusCompleted)
	return hs
}

func TestGolden(t *testing.T) {
	for name, r := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Golden(t, processors.NewChain(antipattern.New(antipattern.DefaultPolicy())), r.Events(), name)
		})
	}
}

func TestConformance(t *testing.T) {
	for name, r := range histories() {
		if name == "honest-run" || name == "stale-verify" {
			continue // decides nothing, which proves little
		}
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, antipattern.New(antipattern.DefaultPolicy()), r.Events())
		})
	}
}

func TestPlainEventsDoNotAllocate(t *testing.T) {
	c := processors.NewChain(antipattern.New(antipattern.DefaultPolicy()))
	st := c.NewRun()
	var out processors.Out
	r := newRun("alloc", "never.txt")
	for i := range 200 {
		r.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i%7))
		r.result(event.Event{Out: "ok"})
		r.Step()
	}
	evs := r.Events()
	for i := range 40 {
		c.Apply(st, &evs[i], &out)
	}
	i := 40
	allocs := testing.AllocsPerRun(150, func() {
		c.Apply(st, &evs[i], &out)
		i++
	})
	if allocs != 0 {
		t.Errorf("applying a plain call, result or step allocates %v times", allocs)
	}
}

// BenchmarkChain measures the detector, in a chain, on a run's common
// events: a call, its result, a step.
func BenchmarkChain(b *testing.B) {
	c := processors.NewChain(antipattern.New(antipattern.DefaultPolicy()))
	r := newRun("bench", "dist/app")
	for i := range 1024 {
		r.Call([]string{"read_file", "edit_file", "bash"}[i%3], fmt.Sprintf(`{"path":"src/f%d.go"}`, i%17))
		r.result(event.Event{Out: "ok"})
		r.Step()
	}
	evs := r.Events()[1:]
	st := c.NewRun()
	var out processors.Out
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := &evs[i%len(evs)]
		ev.Seq = int64(i + 1)
		c.Apply(st, ev, &out)
	}
}
