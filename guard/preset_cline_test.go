package guard_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
)

// TestPresetCline ports cline's loop detection and mistake tracking:
//   - src/core/task/__tests__/loop-detection.test.ts and the behaviour of
//     src/core/task/loop-detection.ts (soft warning at 3, hard escalation
//     at 5, task_progress ignored), at commit
//     ca32a8d7e9aeb1ae82838dff90485a8ba9affb18;
//   - the tracker wiring cases of
//     sdk/packages/core/src/runtime/orchestration/session-runtime-orchestrator.test.ts
//     at commit 21cb8d2525bcedf1f4b6890b27a74a14fe7451e4, where run() starts
//     a fresh conversation (a new run here) and continue() goes on (a new
//     turn of the same run).
//
// The search_files zero-result cases are left out: the wire does not
// report a search's result count.
func TestPresetCline(t *testing.T) {
	turns := 0
	failedTurn := func(s *script, l string) *script {
		turns++
		return s.exec(l, "exec", fmt.Sprintf(`{"cmd":"pwd","try":%d}`, turns), true, `{"message":"sandbox denied","code":"EPERM"}`)
	}
	same := func(s *script, n int, labels map[int]string) *script {
		repeat(n, func(i int) { s.call(labels[i+1], "same", `{"a":1}`).result("", false, "ok") })
		return s
	}
	maxMistakes := func(n int) func(*guard.Policy) {
		return func(p *guard.Policy) {
			rule(p, "mistakes").Ladder = []loop.Step{{At: n, Do: loop.DoStop, Reason: event.ReasonTooManyMistakes}}
		}
	}
	runPorted(t, "cline", []ported{
		{
			from: "loop-detection.ts: a soft warning at the 3rd identical call, a hard escalation at the 5th",
			script: func() *script {
				s := newScript("r")
				repeat(5, func(i int) {
					s.call(fmt.Sprint(i+1), "list_files", `{"path":"src","recursive":"true"}`).result("", false, "x")
				})
				return s
			},
			want: map[string]string{"3": "advise:avoid_repeat allow", "5": "stop:LOOP_DETECTED"},
		},
		{
			from: "loop-detection.ts: task_progress is metadata, left out of the signature",
			script: func() *script {
				s := newScript("r")
				repeat(3, func(i int) {
					s.call(fmt.Sprint(i+1), "write_to_file", fmt.Sprintf(`{"path":"a.ts","content":"x","task_progress":"- [x] step %d"}`, i)).result("", false, "ok")
				})
				return s
			},
			want: map[string]string{"3": "advise:avoid_repeat allow"},
		},
		{
			from: "loop-detection.test.ts: warns when the same path is read repeatedly within the window",
			script: func() *script {
				s := newScript("r")
				for i, other := range []string{"", "src/b.ts", ""} {
					s.callAt(fmt.Sprint("read ", i+1), "read_file", `{"path":"src/foo.ts"}`, "src/foo.ts").result("", false, "x")
					if other != "" {
						s.callAt("", "read_file", `{"path":"src/b.ts"}`, other).result("", false, "y")
					}
				}
				return s
			},
			want: map[string]string{"read 1": "allow", "read 2": "allow", "read 3": "advise:avoid_repeat allow"},
		},
		{
			from: "loop-detection.test.ts: does not warn when reading different paths",
			script: func() *script {
				s := newScript("r")
				for _, p := range []string{"a.ts", "b.ts", "c.ts"} {
					s.callAt("", "read_file", fmt.Sprintf(`{"path":%q}`, p), p).result("", false, "x")
				}
				return s
			},
		},
		{
			from: "loop-detection.test.ts: ignores reads with no path; never trips for unrelated tools",
			script: func() *script {
				s := newScript("r")
				repeat(5, func(i int) { s.exec("", "read_file", fmt.Sprintf(`{"line":%d}`, i), false, "x") })
				return s.exec("", "write_to_file", `{"path":"x.ts","content":"..."}`, false, "ok")
			},
		},
		{
			from: "session-runtime-orchestrator.test.ts: aborts after maxConsecutiveMistakes failed-tool turns (continue does not reset)",
			mod:  maxMistakes(2),
			script: func() *script {
				return failedTurn(failedTurn(newScript("r").user(""), "first").user(""), "second")
			},
			want: map[string]string{"first": "", "second": "stop:TOO_MANY_MISTAKES"},
		},
		{
			from: "session-runtime-orchestrator.test.ts: a productive turn resets the mistakes",
			mod:  maxMistakes(2),
			script: func() *script {
				s := failedTurn(newScript("r"), "")
				s.exec("", "exec", `{"cmd":"ls"}`, false, "a.go")
				return failedTurn(s, "after a success")
			},
			want: map[string]string{"after a success": ""},
		},
		{
			from: "session-runtime-orchestrator.test.ts: aborts on hard-threshold loop detection of identical tool calls (soft 2, hard 3)",
			mod: func(p *guard.Policy) {
				rule(p, "identical_call").Ladder = []loop.Step{{At: 2, Do: loop.DoAdvise}, {At: 3, Do: loop.DoStop, Reason: event.ReasonLoopDetected}}
			},
			script: func() *script { return same(newScript("r"), 3, map[int]string{2: "2nd", 3: "3rd"}) },
			want:   map[string]string{"2nd": "advise:avoid_repeat allow", "3rd": "stop:LOOP_DETECTED"},
		},
		{
			from:   "session-runtime-orchestrator.test.ts: does not trigger loop-detection when execution.loopDetection === false",
			mod:    func(p *guard.Policy) { rule(p, "identical_call").Disabled = true },
			script: func() *script { return same(newScript("r"), 5, nil) },
		},
		{
			from: "index.ts: the user's feedback at the mistake limit resets the mistakes and the loop detection",
			mod:  func(p *guard.Policy) { p.Resume.Allow = []string{"user"} },
			script: func() *script {
				s := newScript("r")
				repeat(3, func(i int) { failedTurn(s, fmt.Sprint("fail ", i+1)) })
				s.resume("resume", "user")
				repeat(2, func(i int) { failedTurn(s, fmt.Sprint("again ", i+1)) })
				return s
			},
			want: map[string]string{"fail 3": "stop:TOO_MANY_MISTAKES", "resume": "resumed", "again 2": ""},
		},
	})

	// session-runtime-orchestrator.test.ts: "resets mistake tracking when
	// run() starts a fresh conversation" and "resets loop detection when
	// run() starts a fresh conversation". A fresh conversation is a new run
	// here, and continue() a new turn of the same run. Each conversation
	// below comes one short of a limit, so the same two conversations in
	// one run are stopped (which proves the case can fail), while in two
	// runs served by one guard, their events interleaved, neither is.
	p, err := guard.Preset("cline")
	if err != nil {
		t.Fatal(err)
	}
	rule(&p, "mistakes").Ladder = []loop.Step{{At: 2, Do: loop.DoStop, Reason: event.ReasonTooManyMistakes}}
	c := guard.Chain(p)
	for _, tc := range []struct {
		resets       string
		conversation func(*script) *script
	}{
		{"mistake tracking", func(s *script) *script { return failedTurn(s.user(""), "") }},
		{"loop detection", func(s *script) *script { return same(s.user(""), 4, nil) }},
	} {
		continued := tc.conversation(tc.conversation(newScript("continued")))
		if rs := replay(c, continued); rs[0].Status != processors.StatusStopped {
			t.Errorf("%s: two conversations in one run were not stopped; the fresh-conversation case proves nothing", tc.resets)
		}
		for _, r := range replay(c, tc.conversation(newScript("first")), tc.conversation(newScript("second"))) {
			if r.Status == processors.StatusStopped {
				t.Errorf("%s: a fresh conversation was stopped (%s); run() resets %s", tc.resets, r.Reason, tc.resets)
			}
		}
	}
}

// replay applies the events of each script to a run of its own in c, the
// scripts' events interleaved, and returns the runs.
func replay(c *processors.Chain, scripts ...*script) []*processors.Run {
	runs := make([]*processors.Run, len(scripts))
	for i := range runs {
		runs[i] = c.NewRun()
	}
	var out processors.Out
	for k := 0; ; k++ {
		applied := false
		for i, s := range scripts {
			if evs := s.h.Events(); k < len(evs) {
				c.Apply(runs[i], &evs[k], &out)
				applied = true
			}
		}
		if !applied {
			return runs
		}
	}
}
