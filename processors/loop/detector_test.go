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
// "stop:LOOP_DETECTED".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		s := processortest.Brief(&d)
		if d.Outcome == event.StatusCompleted {
			s += "(completed)"
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, " ")
}

// decide applies the history and returns each event's decision summary,
// keyed by sequence, leaving out events that drew none.
func decide(p loop.Policy, h *processortest.History) map[int64]string {
	got, _ := processortest.BySeq(processors.NewChain(loop.New(p)), h.Events(), summary)
	return got
}

// calls appends n calls of tool with args, each followed by a successful
// result with output out.
func calls(h *processortest.History, n int, tool, args, out string) *processortest.History {
	for range n {
		h.Call(tool, args).Result(false, out)
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
			policy: func(p *loop.Policy) { p.SameToolHint = 0 },
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
			name: "same tool with varying arguments draws a hint at 4",
			history: func(h *processortest.History) {
				for i := range 5 {
					calls(h, 1, "grep", fmt.Sprintf(`{"q":"%d"}`, i), "x")
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "advise:vary_approach allow", 10: "allow"},
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
				2: "allow", 4: "allow", 6: "allow", 7: "advise:read_errors", 8: "advise:vary_approach allow", 10: "allow", 12: "allow", 13: "stop:TOO_MANY_MISTAKES",
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
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "advise:vary_approach allow", 10: "allow", 12: "allow", 13: "advise:read_errors"},
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
				2: "allow", 4: "allow", 6: "allow", 8: "advise:vary_approach allow", 10: "allow", 12: "advise:break_cycle allow", 14: "allow",
				16: "allow",
				18: "allow", 20: "allow", 22: "allow", 24: "advise:vary_approach allow", 26: "allow", 28: "advise:break_cycle allow",
			},
		},
		{
			name:   "progress-aware: an identical call whose result keeps changing is progress",
			policy: func(p *loop.Policy) { p.ProgressAware = true },
			history: func(h *processortest.History) {
				for i := range 6 {
					h.Call("job_status", `{"id":7}`).Result(false, fmt.Sprintf("running %d%%", 10*i))
				}
			},
			want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow"},
		},
		{
			name:    "progress-aware: an identical call with an unchanged result is still a loop",
			policy:  func(p *loop.Policy) { p.ProgressAware = true },
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
			name: "thresholds of 0 turn checks off",
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
	bad := map[string]func(*loop.Policy){
		"advise not below limit":   func(p *loop.Policy) { p.RepeatAdvise = 5 },
		"negative":                 func(p *loop.Policy) { p.SameToolHint = -1 },
		"mistakes inverted":        func(p *loop.Policy) { p.MistakeAdvise = 7 },
		"odd ping-pong window":     func(p *loop.Policy) { p.PingPongWindow = 5 },
		"ping-pong window too big": func(p *loop.Policy) { p.PingPongWindow = loop.MaxWindow + 2 },
		"unknown action":           func(p *loop.Policy) { p.Action = "explode" },
	}
	for name, mod := range bad {
		if err := policy(mod).Validate(); err == nil {
			t.Errorf("%s: Validate accepted it", name)
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
				p.ProgressAware = true
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
	p.MistakeLimit = 0 // keep the run alive through every scenario
	processortest.Run(t, loop.New(p), all)
	processortest.Run(t, loop.New(loop.DefaultPolicy()), histories()["identical-fail"].Events())
}

func TestAllowDoesNotAllocate(t *testing.T) {
	c := processors.NewChain(loop.New(loop.DefaultPolicy()))
	r := c.NewRun()
	var out processors.Out
	h := processortest.NewHistory("acme", "alloc")
	for i := range 200 {
		h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go","lines":[1,2]}`, i%7)).Result(false, "ok")
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
