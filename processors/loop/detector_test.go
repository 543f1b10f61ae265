package loop_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// summary renders decisions compactly: "allow", "advise:avoid_repeat",
// "stop:LOOP_DETECTED", "stop:LOOP_DETECTED(completed)".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		parts = append(parts, processortest.Brief(&d))
	}
	return strings.Join(parts, " ")
}

// decide applies the history and returns each event's decision summary,
// keyed by sequence, leaving out events that drew none.
func decide(p loop.Policy, h *processortest.History) map[int64]string {
	got, _ := processortest.BySeq(chain(p), h.Events(), summary)
	return got
}

// chain returns a chain of the detector with policy p whose runs anyone
// may resume.
func chain(p loop.Policy) *processors.Chain {
	return processors.NewScoped(nil, processors.Scope{Procs: []processors.Processor{loop.New(p)}, Resume: processors.ResumePolicy{Allow: []string{"*"}}})
}

// calls appends n calls of tool with args, each followed by a successful
// result with output out.
func calls(h *processortest.History, n int, tool, args, out string) *processortest.History {
	for range n {
		h.Call(tool, args).Result(false, out)
	}
	return h
}

// off turns the named rules off.
func off(names ...string) func(*loop.Policy) {
	return func(p *loop.Policy) {
		for _, n := range names {
			p.Rules[index(p, n)].Disabled = true
		}
	}
}

// index returns the position of the named rule in p.
func index(p *loop.Policy, name string) int {
	for i, r := range p.Rules {
		if r.Name == name {
			return i
		}
	}
	panic("no rule " + name)
}

// progressAware makes identical_call treat a changed result as progress.
func progressAware(p *loop.Policy) {
	r := &p.Rules[index(p, "identical_call")]
	r.ResetOn = append(r.ResetOn, loop.OnProgress)
}

// declare makes the run declare the given tools at its start.
func declare(h *processortest.History, tools ...string) *processortest.History {
	for _, t := range tools {
		h.Events()[0].Tools = append(h.Events()[0].Tools, event.Schema{Name: t})
	}
	return h
}

func policy(mod func(*loop.Policy)) loop.Policy {
	p := loop.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func TestDetector(t *testing.T) {
	const read = `{"path":"a.go"}`
	tests := []struct {
		name    string
		policy  func(*loop.Policy)
		history func(h *processortest.History)
		want    map[int64]string // by event sequence; events not listed draw nothing
	}{
		{
			name:    "identical calls advise at 3 and fail at 5",
			history: func(h *processortest.History) { calls(h, 5, "read_file", read, "x") },
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow", 10: "stop:LOOP_DETECTED", 11: "stale",
			},
		},
		{
			name: "key order, whitespace and number formatting do not make a call different",
			history: func(h *processortest.History) {
				for _, args := range []string{`{"path":"a","n":1}`, `{ "n" : 1.0, "path" : "a" }`, `{"n":1e0,"path":"\u0061"}`} {
					h.Call("read_file", args).Result(false, "x")
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow"},
		},
		{
			name:   "changing the arguments resets the streak",
			policy: off("same_tool"),
			history: func(h *processortest.History) {
				calls(h, 2, "read_file", read, "x")
				calls(h, 1, "read_file", `{"path":"b.go"}`, "x")
				calls(h, 3, "read_file", read, "x")
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "advise:avoid_repeat allow"},
		},
		{
			name: "a different target path makes a different call",
			history: func(h *processortest.History) {
				for _, path := range []string{"a", "a", "b"} {
					h.Add(event.Event{Kind: event.KindCall, Call: "c" + path + fmt.Sprint(len(h.Events())), Tool: "edit", Args: `{}`, Path: path})
				}
			},
			want: map[int64]string{2: "allow", 3: "allow", 4: "allow"},
		},
		{
			name:    "complete_with_warning ends the run as completed",
			policy:  func(p *loop.Policy) { p.Action = loop.ActionCompleteWithWarning },
			history: func(h *processortest.History) { calls(h, 5, "read_file", read, "x") },
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow", 10: "stop:LOOP_DETECTED(completed)", 11: "stale",
			},
		},
		{
			name:   "inject_steer refuses with an override, and one more repeat stops with SYSTEM_ERROR",
			policy: func(p *loop.Policy) { p.Action = loop.ActionInjectSteer },
			history: func(h *processortest.History) {
				calls(h, 4, "read_file", read, "x").Call("read_file", read).Call("read_file", read)
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow",
				10: "advise:override reject:LOOP_DETECTED", 11: "stop:SYSTEM_ERROR",
			},
		},
		{
			name:   "inject_steer obeyed: changing the arguments after the override goes on",
			policy: func(p *loop.Policy) { p.Action = loop.ActionInjectSteer },
			history: func(h *processortest.History) {
				calls(h, 4, "read_file", read, "x").Call("read_file", read)
				calls(h, 2, "read_file", `{"path":"b.go"}`, "x")
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow",
				10: "advise:override reject:LOOP_DETECTED", 11: "allow", 13: "allow",
			},
		},
		{
			name: "same tool failing with varying arguments draws a hint at the 4th failure, in a run with another tool",
			history: func(h *processortest.History) {
				declare(h, "grep", "read_file")
				for i := range 5 {
					h.Call("grep", fmt.Sprintf(`{"q":"(%d"}`, i)).Result(true, "grep: Unmatched ( or \\(")
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "advise:read_errors", 8: "allow", 9: "advise:vary_approach", 10: "allow"},
		},
		{
			name: "same tool succeeding with varying arguments is work, not a loop",
			history: func(h *processortest.History) {
				declare(h, "grep", "read_file")
				for i := range 5 {
					calls(h, 1, "grep", fmt.Sprintf(`{"q":"%d"}`, i), "x")
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow"},
		},
		{
			name: "fan_out: the 5th spawn_agent call is advised and every one past it rejected; other tools go on",
			history: func(h *processortest.History) {
				for i := range 7 {
					calls(h, 1, "spawn_agent", fmt.Sprintf(`{"task":"part %d"}`, i), "done")
				}
				calls(h, 1, "grep", `{"q":"x"}`, "x")
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "advise:narrow_scope allow",
				12: "reject:LIMIT_EXCEEDED", 13: "", 14: "reject:LIMIT_EXCEEDED", 16: "allow",
			},
		},
		{
			name: "fan_out: read_file has a budget of 50 calls a run",
			history: func(h *processortest.History) {
				for i := range 51 {
					calls(h, 1, "read_file", fmt.Sprintf(`{"path":"src/f%d.go"}`, i), "x")
				}
			},
			want: func() map[int64]string {
				want := map[int64]string{}
				for i := range int64(51) {
					want[2+2*i] = "allow"
				}
				want[100], want[102] = "advise:narrow_scope allow", "reject:LIMIT_EXCEEDED"
				return want
			}(),
		},
		{
			name: "parallel calls of one tool in a round are fan-out, not a same-tool streak",
			history: func(h *processortest.History) {
				for r := range 2 {
					for i := range 4 {
						h.Call("search", fmt.Sprintf(`{"q":"%d-%d"}`, r, i))
					}
					for i := range 4 {
						h.ResultOf(fmt.Sprintf("c%d", 4*r+i+1), false, "x")
					}
				}
			},
			want: map[int64]string{2: "allow", 3: "allow", 4: "allow", 5: "allow", 10: "allow", 11: "allow", 12: "allow", 13: "allow"},
		},
		{
			name: "all-error rounds advise at 3 and stop at 6",
			history: func(h *processortest.History) {
				for i := range 6 {
					h.Call("build", fmt.Sprintf(`{"try":%d}`, i)).Result(true, "error")
				}
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 7: "advise:read_errors", 8: "allow", 10: "allow", 12: "allow", 13: "stop:TOO_MANY_MISTAKES",
			},
		},
		{
			name: "a success resets the mistake count",
			history: func(h *processortest.History) {
				for i := range 2 {
					h.Call("build", fmt.Sprintf(`{"try":%d}`, i)).Result(true, "error")
				}
				h.Call("build", `{"try":"ok"}`).Result(false, "built")
				for i := range 3 {
					h.Call("build", fmt.Sprintf(`{"try":%d}`, i+10)).Result(true, "error")
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 13: "advise:read_errors"},
		},
		{
			name: "abandoned calls (no verdict in time, never run) are not mistakes",
			history: func(h *processortest.History) {
				for i := range 8 {
					h.Call("build", fmt.Sprintf(`{"try":%d}`, i))
					h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", i+1), Abandoned: true})
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 16: "allow"},
		},
		{
			name: "an abandoned call neither breaks nor resets a streak of failures",
			history: func(h *processortest.History) {
				for i := range 6 {
					h.Call("build", fmt.Sprintf(`{"try":%d}`, i)).Result(true, "error")
					if i == 2 {
						h.Call("build", `{"try":"timed out"}`)
						h.Add(event.Event{Kind: event.KindResult, Call: "c4", Abandoned: true})
					}
				}
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 7: "advise:read_errors", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 15: "stop:TOO_MANY_MISTAKES",
			},
		},
		{
			name: "an abandoned call closes its round; the round's failures still count",
			history: func(h *processortest.History) {
				for i := range 3 {
					h.Call("a", fmt.Sprintf(`{"i":%d}`, i)).Call("b", fmt.Sprintf(`{"i":%d}`, i))
					h.ResultOf(fmt.Sprintf("c%d", 2*i+1), true, "e")
					h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", 2*i+2), Abandoned: true})
				}
			},
			want: map[int64]string{2: "allow", 3: "allow", 6: "allow", 7: "allow", 10: "allow", 11: "allow", 13: "advise:read_errors"},
		},
		{
			name:   "an abandoned result is not new output: it does not reset a repeat streak",
			policy: progressAware,
			history: func(h *processortest.History) {
				calls(h, 2, "read_file", read, "x")
				h.Call("read_file", read)
				h.Add(event.Event{Kind: event.KindResult, Call: "c3", Abandoned: true})
				calls(h, 2, "read_file", read, "x")
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow", 10: "stop:LOOP_DETECTED", 11: "stale"},
		},
		{
			name: "a parallel round with one success is not a mistake",
			history: func(h *processortest.History) {
				for i := range 3 {
					h.Call("a", fmt.Sprintf(`{"i":%d}`, i)).Call("b", fmt.Sprintf(`{"i":%d}`, i))
					h.ResultOf(fmt.Sprintf("c%d", 2*i+1), true, "e").ResultOf(fmt.Sprintf("c%d", 2*i+2), i == 1, "e")
				}
			},
			want: map[int64]string{2: "allow", 3: "allow", 6: "allow", 7: "allow", 10: "allow", 11: "allow"},
		},
		{
			name: "a step closes a round whose remaining calls never report",
			history: func(h *processortest.History) {
				for i := range 3 {
					h.Call("a", fmt.Sprintf(`{"i":%d}`, i)).Call("b", fmt.Sprintf(`{"i":%d}`, i)).Result(true, "e").Step()
				}
			},
			want: map[int64]string{2: "allow", 3: "allow", 6: "allow", 7: "allow", 10: "allow", 11: "allow", 13: "advise:read_errors"},
		},
		{
			name: "alternating calls draw one break_cycle, re-armed when the cycle breaks",
			history: func(h *processortest.History) {
				for i := range 7 {
					calls(h, 1, "read_file", fmt.Sprintf(`{"path":"%c"}`, 'a'+i%2), "x")
				}
				calls(h, 1, "ls", `{}`, "x")
				for i := range 6 {
					calls(h, 1, "read_file", fmt.Sprintf(`{"path":"%c"}`, 'a'+i%2), "x")
				}
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "advise:break_cycle allow", 14: "allow",
				16: "allow",
				18: "allow", 20: "allow", 22: "allow", 24: "allow", 26: "allow", 28: "advise:break_cycle allow",
			},
		},
		{
			name:   "progress-aware: an identical call whose result keeps changing is progress",
			policy: progressAware,
			history: func(h *processortest.History) {
				for i := range 6 {
					h.Call("job_status", `{"id":7}`).Result(false, fmt.Sprintf("running %d%%", 10*i))
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow"},
		},
		{
			name:    "progress-aware: an identical call with an unchanged result is still a loop",
			policy:  progressAware,
			history: func(h *processortest.History) { calls(h, 3, "job_status", `{"id":7}`, "running 10%") },
			want:    map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow"},
		},
		{
			name: "progress-aware off: changing results do not excuse a repeat",
			history: func(h *processortest.History) {
				h.Call("job_status", `{"id":7}`).Result(false, "1").Call("job_status", `{"id":7}`).Result(false, "2").Call("job_status", `{"id":7}`)
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow"},
		},
		{
			name:   "exempt tools are not counted and do not break streaks",
			policy: func(p *loop.Policy) { p.Exempt = []string{"poll"} },
			history: func(h *processortest.History) {
				calls(h, 6, "poll", `{}`, "same")
				for range 3 {
					calls(h, 1, "read_file", read, "x")
					calls(h, 1, "poll", `{}`, "same")
				}
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow",
				14: "allow", 16: "allow", 18: "allow", 20: "allow", 22: "advise:avoid_repeat allow", 24: "allow",
			},
		},
		{
			name:    "calls after a stop are rejected with the stop's reason",
			history: func(h *processortest.History) { calls(h, 5, "read_file", read, "x").Call("ls", `{}`) },
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow", 10: "stop:LOOP_DETECTED", 11: "stale", 12: "reject:LOOP_DETECTED",
			},
		},
		{
			// pylint-dev__pylint-8898 of the dev set: pylint exits with a
			// bit mask of its findings (16 = convention messages) on every
			// run that reports something; six such rounds were read as
			// failures and stopped the run TOO_MANY_MISTAKES.
			name: "a linter's findings are its answer, not a failed round",
			history: func(h *processortest.History) {
				for i := range 6 {
					h.Call("bash", fmt.Sprintf(`{"command": "pylint --bad-names-rgxs=\"myvar\" foo%d.py"}`, i))
					h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", i+1), Err: true, Exit: 16, Out: "C0104: Disallowed name"})
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow"},
		},
		{
			// astropy__astropy-13236: grep finding nothing exits 1, three
			// searches in a row drew "re-read the error messages".
			name: "grep finding nothing is an answer; a command that is not found still fails",
			history: func(h *processortest.History) {
				for i := range 3 {
					h.Call("bash", fmt.Sprintf(`{"command": "grep -r \"NdarrayMixin\" astropy/table/tests/test_%d.py"}`, i))
					h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", i+1), Err: true, Exit: 1})
				}
				for i := range 3 {
					h.Call("bash", fmt.Sprintf(`{"command": "pytets -x t%d.py"}`, i))
					h.Add(event.Event{Kind: event.KindResult, Call: fmt.Sprintf("c%d", i+4), Err: true, Exit: 127, Out: "pytets: command not found"})
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 13: "advise:read_errors"},
		},
		{
			name: "a policy without rules checks nothing",
			policy: func(p *loop.Policy) {
				*p = loop.Policy{Action: loop.ActionFail}
			},
			history: func(h *processortest.History) {
				calls(h, 7, "read_file", read, "x")
				for range 7 {
					h.Call("build", `{}`).Result(true, "e")
				}
			},
			want: map[int64]string{
				2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow",
				16: "allow", 18: "allow", 20: "allow", 22: "allow", 24: "allow", 26: "allow", 28: "allow",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy(tt.policy)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			h := processortest.NewHistory("acme", "run-1")
			tt.history(h)
			got := decide(p, h)
			for seq := int64(1); seq <= int64(len(h.Events())); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &h.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := loop.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	rule := func(name string, mod func(*loop.Rule)) func(*loop.Policy) {
		return func(p *loop.Policy) { mod(&p.Rules[index(p, name)]) }
	}
	bad := map[string]struct {
		mod  func(*loop.Policy)
		says string
	}{
		"steps out of order":      {rule("identical_call", func(r *loop.Rule) { r.Ladder[0].At = 5 }), "loop.rules[identical_call].ladder[1].at is 5; steps must rise"},
		"a step at 0":             {rule("same_tool", func(r *loop.Rule) { r.Ladder[0].At = 0 }), "loop.rules[same_tool].ladder[0].at is 0"},
		"unknown action":          {func(p *loop.Policy) { p.Action = "explode" }, `loop.action is "explode"`},
		"unknown do":              {rule("mistakes", func(r *loop.Rule) { r.Ladder[1].Do = "explode" }), `ladder[1].do is "explode"`},
		"reject on rounds":        {rule("mistakes", func(r *loop.Rule) { r.Ladder[1].Do = loop.DoReject }), "refuses the call being judged"},
		"unknown steer":           {rule("ping_pong", func(r *loop.Rule) { r.Ladder[0].Steer = "sing" }), `steer is "sing"`},
		"unknown reason":          {rule("mistakes", func(r *loop.Rule) { r.Ladder[1].Reason = "BORED" }), `reason is "BORED"`},
		"cycle too long":          {rule("ping_pong", func(r *loop.Rule) { r.Cycle = loop.MaxCycle + 1 }), "min_cycle <= cycle <= 8"},
		"sliding without a size":  {rule("identical_call", func(r *loop.Rule) { r.Window = loop.WindowSliding }), "size is 0"},
		"a cycle in a run window": {rule("ping_pong", func(r *loop.Rule) { r.Window = loop.WindowRun }), "only consecutive windows find patterns"},
		"reset on what it counts": {rule("identical_call", func(r *loop.Rule) { r.ResetOn = []loop.Trigger{loop.OnCall} }), `reset_on has "call", which is what the rule counts`},
		"progress on rounds":      {rule("mistakes", func(r *loop.Rule) { r.ResetOn = []loop.Trigger{loop.OnProgress} }), "progress restarts consecutive calls rules only"},
		"a result on calls":       {rule("identical_call", func(r *loop.Rule) { r.Result = loop.ResultExit }), "result applies to results rules"},
		"only on calls":           {rule("identical_call", func(r *loop.Rule) { r.Only = loop.OnlyFailed }), "only: results and rounds have outcomes"},
		"an empty ladder":         {rule("same_tool", func(r *loop.Rule) { r.Ladder = nil }), "ladder is empty"},
		"a matched tool without a ladder": {rule("fan_out", func(r *loop.Rule) { r.Match = append(r.Match, "grep") }),
			"loop.rules[fan_out].ladder is empty; give it at least one step, or set disabled, or give every tool it matches a ladder in tools"},
		"a bad name":       {rule("same_tool", func(r *loop.Rule) { r.Name = "Same Tool" }), `the name "Same Tool"`},
		"a repeated name":  {rule("same_tool", func(r *loop.Rule) { r.Name = "identical_call" }), `repeats the name "identical_call"`},
		"varied with args": {rule("identical_call", func(r *loop.Rule) { r.Varied = true }), "varied applies"},
		"an unknown mask":  {rule("identical_call", func(r *loop.Rule) { r.Normalize = []loop.Mask{"names"} }), `normalize has "names"`},
		"an override's bad ladder": {rule("identical_call", func(r *loop.Rule) {
			r.Tools = map[string]loop.Override{"bash": {Ladder: []loop.Step{{At: 2, Do: "x"}}}}
		}), `loop.rules[identical_call].tools["bash"].ladder[0].do is "x"`},
		"an empty class":         {func(p *loop.Policy) { p.Classes = map[string][]string{"polling": nil} }, `classes["polling"]`},
		"an empty key to ignore": {rule("identical_call", func(r *loop.Rule) { r.IgnoreArgs = []string{""} }), "loop.rules[identical_call].ignore_args[0] is empty"},
		"ignore_args without args": {rule("mistakes", func(r *loop.Rule) { r.IgnoreArgs = []string{"note"} }),
			"loop.rules[mistakes].ignore_args: the rule's identity has no arguments"},
		"too many lists of keys to ignore": {func(p *loop.Policy) {
			for i := range 4 {
				p.Rules = append(p.Rules, loop.Rule{Name: fmt.Sprint("r", i), IgnoreArgs: []string{fmt.Sprint("k", i)}, Ladder: []loop.Step{{At: 3, Do: loop.DoAdvise}}})
			}
		}, "rules list 5 distinct ignore_args, the loop's included; the limit is 4"},
	}
	for name, c := range bad {
		err := policy(c.mod).Validate()
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: Validate() = %v; want an error saying %q", name, err, c.says)
		}
	}
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]*processortest.History {
	read := `{"path":"a.go"}`
	hs := map[string]*processortest.History{}
	hs["identical-fail"] = calls(processortest.NewHistory("acme", "loop"), 5, "read_file", read, "package a")
	h := calls(processortest.NewHistory("acme", "steer"), 4, "read_file", read, "x")
	hs["inject-steer"] = h.Call("read_file", read).Call("read_file", read)
	h = processortest.NewHistory("acme", "mistakes")
	for i := range 6 {
		h.Call("build", fmt.Sprintf(`{"try":%d}`, i)).Result(true, "compile error").Step()
	}
	hs["mistakes"] = h
	h = processortest.NewHistory("acme", "pingpong")
	for i := range 8 {
		h.Call(map[bool]string{true: "open", false: "close"}[i%2 == 0], `{"door":1}`).Result(false, "ok")
	}
	hs["ping-pong"] = h
	h = processortest.NewHistory("acme", "poll")
	for i := range 4 {
		h.Call("job_status", `{"id":7}`).Result(false, fmt.Sprintf("%d%%", 25*i))
	}
	hs["progress-aware"] = calls(h, 3, "job_status", `{"id":7}`, "100%").End(event.StatusCompleted)
	h = processortest.NewHistory("acme", "monologue")
	for i := range 6 {
		h.Add(event.Event{Kind: event.KindStep, Step: int64(i), TextDig: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824"})
		if i == 1 {
			h.Call("ls", `{}`).Result(false, "a.go") // a tool result breaks the monologue
		}
	}
	hs["monologue"] = h
	h = processortest.NewHistory("acme", "compactions")
	for i := range 11 {
		h.Add(event.Event{Kind: event.KindCompact, Context: 90_000, Window: 100_000})
		if i == 2 {
			h.Call("ls", `{}`).Result(false, "a.go")
		}
	}
	hs["compactions"] = h
	return hs
}

func TestGolden(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			p := loop.DefaultPolicy()
			switch name {
			case "inject-steer":
				p.Action = loop.ActionInjectSteer
			case "progress-aware":
				progressAware(&p)
			}
			processortest.Golden(t, processors.NewChain(loop.New(p)), h.Events(), name)
		})
	}
}

func TestConformance(t *testing.T) {
	var all []event.Event
	for _, name := range []string{"mistakes", "ping-pong", "progress-aware"} {
		all = append(all, histories()[name].Events()...)
	}
	// One run through several scenarios: renumber to keep sequences rising.
	for i := range all {
		all[i].Run, all[i].Seq = "kit", int64(i+1)
	}
	p := loop.DefaultPolicy()
	p.Rules[index(&p, "mistakes")].Ladder = p.Rules[index(&p, "mistakes")].Ladder[:1] // keep the run alive through every scenario
	processortest.Run(t, loop.New(p), all)
	processortest.Run(t, loop.New(loop.DefaultPolicy()), histories()["identical-fail"].Events())
}

func TestAllowDoesNotAllocate(t *testing.T) {
	c := processors.NewChain(loop.New(loop.DefaultPolicy()))
	r := c.NewRun()
	var out processors.Out
	h := processortest.NewHistory("acme", "alloc")
	for i := range 200 { // read_file every other call: counted against its budget, within it
		h.Call([]string{"read_file", "grep"}[i%2], fmt.Sprintf(`{"path":"f%d.go","lines":[1,2]}`, i%7)).Result(false, "ok")
	}
	evs := h.Events()
	for i := range 40 { // warm up: capacities settle
		c.Apply(r, &evs[i], &out)
	}
	i := 40
	allocs := testing.AllocsPerRun(100, func() {
		c.Apply(r, &evs[i], &out)
		i++
	})
	if allocs != 0 {
		t.Errorf("applying a plain call or result allocates %v times", allocs)
	}
}
