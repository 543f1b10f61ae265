package loop_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// step builds a ladder step.
func step(at int, do loop.Do) loop.Step { return loop.Step{At: at, Do: do} }

// advise, stop: the common steps.
var (
	adviseAt = func(at int) loop.Step { return step(at, loop.DoAdvise) }
	stopAt   = func(at int) loop.Step { return step(at, loop.DoStop) }
)

// ev builds an agent event of kind k.
func ev(k event.Kind, mod func(*event.Event)) event.Event {
	e := event.Event{Kind: k}
	if mod != nil {
		mod(&e)
	}
	return e
}

// callWith appends a call with a path.
func callWith(h *processortest.History, tool, args, path string) *processortest.History {
	h.Call(tool, args)
	evs := h.Events()
	evs[len(evs)-1].Path = path
	return h
}

// resultExit appends the result of the last call with an exit code.
func resultExit(h *processortest.History, failed bool, out string, exit int64) *processortest.History {
	h.Result(failed, out)
	evs := h.Events()
	evs[len(evs)-1].Exit = exit
	return h
}

// modelCases exercise every option of the rule model, every reset and
// every escalation step: each is a policy of one or two rules, a history,
// and the decisions expected by event sequence. Each also has a golden log
// in testdata/model/, headed by its rules.
var modelCases = []struct {
	name    string
	policy  loop.Policy
	history func(h *processortest.History)
	want    map[int64]string
}{
	// Identity.
	{
		name:   "ignore_args leaves an argument out of the identity",
		policy: loop.Policy{IgnoreArgs: []string{"task_progress"}, Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for i := range 3 {
				h.Call("read_file", fmt.Sprintf(`{"path":"a.go","task_progress":"%d/3"}`, i)).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow"},
	},
	{
		name: "a rule's own ignore_args replace the loop's; an empty list leaves nothing out",
		policy: loop.Policy{IgnoreArgs: []string{"task_progress"}, Rules: loop.Rules{
			{Name: "inherits", Ladder: []loop.Step{adviseAt(3)}},
			{Name: "exact", IgnoreArgs: []string{}, Ladder: []loop.Step{adviseAt(3)}},
			{Name: "no_nonce", IgnoreArgs: []string{"nonce"}, Ladder: []loop.Step{adviseAt(3)}},
		}},
		history: func(h *processortest.History) {
			for i := range 3 { // progress notes change: the same call to inherits only
				h.Call("edit", fmt.Sprintf(`{"path":"a.go","task_progress":"%d/3","nonce":1}`, i)).Result(false, "x")
			}
			for i := range 3 { // nonces change: the same call to no_nonce only
				h.Call("edit", fmt.Sprintf(`{"path":"b.go","task_progress":"3/3","nonce":%d}`, i)).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow", 8: "allow", 10: "allow", 12: "advise:avoid_repeat allow"},
	},
	{
		name: "a results rule's own ignore_args: results of calls that differ only in an ignored key compare",
		policy: loop.Policy{Rules: loop.Rules{
			{Name: "no_progress", Count: loop.CountResults, IgnoreArgs: []string{"request_id"}, Ladder: []loop.Step{adviseAt(3)}},
			{Name: "exact", Count: loop.CountResults, Ladder: []loop.Step{adviseAt(2)}},
		}},
		history: func(h *processortest.History) {
			for i := range 3 {
				h.Call("job_status", fmt.Sprintf(`{"job":7,"request_id":"r%d"}`, i)).Result(false, "running")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "advise:avoid_repeat"},
	},
	{
		name:   "an identity without path joins calls on different paths",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Identity: []loop.Field{loop.FieldTool, loop.FieldArgs}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for _, p := range []string{"a", "b", ""} {
				callWith(h, "edit", `{}`, p).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "advise:avoid_repeat allow"},
	},
	{
		name:   "the default identity hashes path apart from args: setting it on one call breaks the streak",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			callWith(h, "edit", `{"path":"a"}`, "").Result(false, "x")
			callWith(h, "edit", `{"path":"a"}`, "a").Result(false, "x")
			callWith(h, "edit", `{"path":"a"}`, "").Result(false, "x")
			callWith(h, "edit", `{"path":"a"}`, "").Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name: "results with output equality, volatile digits masked",
		policy: loop.Policy{Rules: loop.Rules{{Name: "no_progress", Count: loop.CountResults, Normalize: []loop.Mask{loop.MaskDigits, loop.MaskUUID},
			Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Call("job", `{}`).Result(false, "pid 101 session 3f2b9a4e-8c1d-4e5f-9a7b-0c6d2e1f3a4b still running")
			h.Call("job", `{}`).Result(false, "pid 202 session 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b still running")
			h.Call("job", `{}`).Result(false, "pid 303 session 00000000-0000-4000-8000-000000000000 still running")
			h.Call("job", `{}`).Result(false, "done")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "advise:avoid_repeat", 8: "allow"},
	},
	{
		name: "per-tool result equality: a shell result by exit code, a file read by content",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_outcome", Count: loop.CountResults, Ladder: []loop.Step{adviseAt(2)},
			Tools: map[string]loop.Override{"bash": {Result: loop.ResultExit}}}}},
		history: func(h *processortest.History) {
			resultExit(h.Call("bash", `{"cmd":"make"}`), true, "error at 12:01", 2)
			resultExit(h.Call("bash", `{"cmd":"make"}`), true, "error at 12:02", 2)
			h.Call("read_file", `{"path":"a"}`).Result(false, "v1")
			h.Call("read_file", `{"path":"a"}`).Result(false, "v2")
		},
		want: map[int64]string{2: "allow", 4: "allow", 5: "advise:avoid_repeat", 6: "allow", 8: "allow"},
	},
	{
		name: "per-tool normalize: one tool's masks replace the rule's, an empty list compares outputs as they are",
		policy: loop.Policy{Rules: loop.Rules{{Name: "no_progress", Count: loop.CountResults, Normalize: []loop.Mask{loop.MaskDigits},
			Ladder: []loop.Step{adviseAt(3)}, Tools: map[string]loop.Override{
				"clock":   {Normalize: []loop.Mask{}},
				"session": {Normalize: []loop.Mask{loop.MaskUUID}},
			}}}},
		history: func(h *processortest.History) {
			for i := range 3 { // the rule's digits mask: the same output
				h.Call("job", `{}`).Result(false, fmt.Sprintf("pid %d running", 100+i))
			}
			for i := range 3 { // no mask: three outputs
				h.Call("clock", `{}`).Result(false, fmt.Sprintf("12:0%d", i))
			}
			for _, id := range []string{"3f2b9a4e-8c1d-4e5f-9a7b-0c6d2e1f3a4b", "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b", "c0ffee00-aaaa-4bbb-8ccc-dddddddddddd"} {
				h.Call("session", `{}`).Result(false, "session "+id+" open") // the uuid mask, not digits: the same output
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "advise:avoid_repeat", 8: "allow", 10: "allow", 12: "allow",
			14: "allow", 16: "allow", 18: "allow", 19: "advise:avoid_repeat"},
	},
	{
		name: "result error equality: failures with different messages are the same outcome",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_error", Count: loop.CountResults, Result: loop.ResultError, Only: loop.OnlyFailed,
			Ladder: []loop.Step{stopAt(3)}}}},
		history: func(h *processortest.History) {
			for _, out := range []string{"not found", "still not found", "another error"} {
				h.Call("run", `{"cmd":"x"}`).Result(true, out)
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "stop:TOO_MANY_MISTAKES"},
	},
	// Unit.
	{
		name:   "unit round: repeats within a parallel round count once",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Unit: loop.UnitRound, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("ls", `{}`).Call("ls", `{}`).Call("ls", `{}`)
			h.ResultOf("c1", false, "x").ResultOf("c2", false, "x").ResultOf("c3", false, "x")
			h.Call("ls", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 3: "allow", 4: "allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name:   "unit turn: repeats within a user turn count once",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Unit: loop.UnitTurn, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Add(ev(event.KindTurn, nil))
			h.Call("ls", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x")
			h.Add(ev(event.KindTurn, nil))
			h.Call("ls", `{}`).Result(false, "x")
		},
		want: map[int64]string{3: "allow", 5: "allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name: "rounds as the unit: single-call rounds repeat, a multi-call round resets the streak",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_round", Count: loop.CountRounds, Identity: []loop.Field{loop.FieldTool, loop.FieldArgs},
			Ladder: []loop.Step{adviseAt(3), stopAt(5)}}}},
		history: func(h *processortest.History) {
			h.Call("ls", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x")
			h.Call("ls", `{}`).Call("pwd", `{}`).ResultOf("c3", false, "x").ResultOf("c4", false, "x")
			for range 5 {
				h.Call("ls", `{}`).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 7: "allow", 10: "allow", 12: "allow", 14: "allow", 15: "advise:avoid_repeat",
			16: "allow", 18: "allow", 19: "stop:LOOP_DETECTED"},
	},
	// Windows.
	{
		name:   "a sliding window counts the same call among the last N, others between",
		policy: loop.Policy{Rules: loop.Rules{{Name: "frequent", Window: loop.WindowSliding, Size: 5, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for _, t := range []string{"a", "b", "a", "c", "a", "d", "e", "f", "a"} {
				h.Call(t, `{}`).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "advise:avoid_repeat allow", 12: "allow", 14: "allow", 16: "allow", 18: "allow"},
	},
	{
		name:   "a run window counts the same call over the whole run",
		policy: loop.Policy{Rules: loop.Rules{{Name: "memo", Window: loop.WindowRun, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for _, t := range []string{"a", "b", "c", "d", "a", "e", "f", "g", "h", "a"} {
				h.Call(t, `{}`).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 16: "allow", 18: "allow", 20: "advise:avoid_repeat allow"},
	},
	{
		name:   "cycles up to 3: a cycle of three calls repeated three times",
		policy: loop.Policy{Rules: loop.Rules{{Name: "cycle", Cycle: 3, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for i := range 9 {
				h.Call([]string{"a", "b", "c"}[i%3], `{}`).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 16: "allow", 18: "advise:break_cycle allow"},
	},
	{
		name:   "min_cycle 2: identical calls are not a ping-pong",
		policy: loop.Policy{Rules: loop.Rules{{Name: "ping_pong", Cycle: 2, MinCycle: 2, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			for range 4 {
				h.Call("a", `{}`).Result(false, "x")
			}
			h.Call("b", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("b", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "advise:break_cycle allow"},
	},
	{
		name: "only failed results, consecutive: a success breaks the streak",
		policy: loop.Policy{Rules: loop.Rules{{Name: "failures", Count: loop.CountResults, Only: loop.OnlyFailed, Result: loop.ResultNone,
			Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("t", `{}`).Result(true, "e").Call("t", `{}`).Result(false, "ok").Call("t", `{}`).Result(true, "e").Call("t", `{}`).Result(true, "e")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 9: "advise:read_errors"},
	},
	{
		name: "only failed results over the run: a success neither counts nor resets (per signature and per tool)",
		policy: loop.Policy{Rules: loop.Rules{
			{Name: "sig_failures", Count: loop.CountResults, Only: loop.OnlyFailed, Result: loop.ResultNone, Window: loop.WindowRun, Ladder: []loop.Step{adviseAt(2)}},
			{Name: "tool_failures", Count: loop.CountResults, Only: loop.OnlyFailed, Identity: []loop.Field{loop.FieldTool}, Window: loop.WindowRun, Ladder: []loop.Step{adviseAt(3)}},
		}},
		history: func(h *processortest.History) {
			h.Call("t", `{"a":1}`).Result(true, "e").Call("t", `{"a":1}`).Result(false, "ok").Call("t", `{"a":2}`).Result(true, "e")
			h.Call("t", `{"a":1}`).Result(true, "e")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 9: "advise:read_errors advise:read_errors"},
	},
	{
		name: "an abandoned result (the call never ran) is no item, and neither breaks nor resets a streak",
		policy: loop.Policy{Rules: loop.Rules{{Name: "failures", Count: loop.CountResults, Only: loop.OnlyFailed, Result: loop.ResultNone,
			ResetOn: []loop.Trigger{}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Call("t", `{}`).Result(true, "e").Call("t", `{}`).Result(true, "e")
			h.Call("t", `{}`)
			h.Add(event.Event{Kind: event.KindResult, Call: "c3", Abandoned: true})
			h.Call("t", `{}`).Result(true, "e")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 9: "advise:read_errors"},
	},
	// Resets and re-arms.
	{
		name:   "reset on a turn event",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", ResetOn: []loop.Trigger{loop.OnTurn}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindTurn, nil))
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "allow", 7: "allow", 9: "allow", 11: "advise:avoid_repeat allow"},
	},
	{
		name:   "reset on a step that opens a new turn",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", ResetOn: []loop.Trigger{loop.OnTurn}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Add(ev(event.KindStep, func(e *event.Event) { e.Turn = 1 }))
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindStep, func(e *event.Event) { e.Turn = 1 }))
			h.Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindStep, func(e *event.Event) { e.Turn = 2 }))
			h.Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{3: "allow", 5: "allow", 8: "advise:avoid_repeat allow", 11: "allow"},
	},
	{
		name:   "reset on resume",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", ResetOn: []loop.Trigger{loop.OnResume}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindResume, func(e *event.Event) { e.By, e.Why = "ops", "continue" }))
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "resumed", 5: "allow", 7: "advise:avoid_repeat allow"},
	},
	{
		name:   "reset on compaction",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", ResetOn: []loop.Trigger{loop.OnCompaction}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindCompact, nil))
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 5: "allow", 7: "advise:avoid_repeat allow"},
	},
	{
		name:   "re-arm on compaction: the ladder fires again at the current count",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", RearmOn: []loop.Trigger{loop.OnCompaction}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindCompact, nil))
			h.Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 6: "allow", 9: "advise:avoid_repeat allow"},
	},
	{
		name:   "reset on step: repeats within one LLM step, counted afresh at the next",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_in_step", ResetOn: []loop.Trigger{loop.OnStep}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Step()
			h.Call("a", `{}`).Call("a", `{}`)
			h.Step()
			h.Call("a", `{}`).Call("a", `{}`).Call("a", `{}`)
		},
		want: map[int64]string{3: "allow", 4: "allow", 6: "allow", 7: "allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name:   "re-arm on step: the ladder fires again at the count it has after each LLM step",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", RearmOn: []loop.Trigger{loop.OnStep}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Step()
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 6: "allow", 9: "advise:avoid_repeat allow", 11: "allow"},
	},
	{
		name:   "re-arm on turn: a new prompt fires the ladder again, without clearing the count",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", RearmOn: []loop.Trigger{loop.OnTurn}, Ladder: []loop.Step{adviseAt(2), stopAt(5)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindTurn, nil))
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 7: "advise:avoid_repeat allow", 9: "allow", 11: "stop:LOOP_DETECTED"},
	},
	{
		name:   "re-arm on resume",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", RearmOn: []loop.Trigger{loop.OnResume}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x")
			h.Add(ev(event.KindResume, func(e *event.Event) { e.By, e.Why = "ops", "go on" }))
			h.Call("a", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 6: "resumed", 7: "advise:avoid_repeat allow"},
	},
	{
		name:   "re-arm on result: a compaction loop advised again after tool activity that does not reset it",
		policy: loop.Policy{Rules: loop.Rules{{Name: "compactions", Count: loop.CountCompactions, RearmOn: []loop.Trigger{loop.OnResult}, Ladder: []loop.Step{adviseAt(2)}}}},
		history: func(h *processortest.History) {
			h.Add(ev(event.KindCompact, nil)).Add(ev(event.KindCompact, nil)).Add(ev(event.KindCompact, nil))
			h.Call("t", `{}`).Result(false, "x")
			h.Add(ev(event.KindCompact, nil))
		},
		want: map[int64]string{3: "advise:compaction_loop", 5: "allow", 7: "advise:compaction_loop"},
	},
	{
		name:   "reset on result: a monologue broken by a tool result",
		policy: loop.Policy{Rules: loop.Rules{{Name: "monologue", Count: loop.CountMessages, ResetOn: []loop.Trigger{loop.OnResult}, Ladder: []loop.Step{adviseAt(3), stopAt(4)}}}},
		history: func(h *processortest.History) {
			say := func(d string) { h.Add(ev(event.KindStep, func(e *event.Event) { e.TextDig = d })) }
			say("d1")
			say("d1")
			h.Call("t", `{}`).Result(false, "x")
			say("d1")
			say("d1")
			say("d1")
			h.Add(ev(event.KindStep, nil)) // a step without text neither counts nor breaks
			say("d1")
		},
		want: map[int64]string{4: "allow", 8: "advise:repeat_message", 10: "stop:LOOP_DETECTED"},
	},
	{
		name:   "reset on call: compactions in a row, broken by tool activity",
		policy: loop.Policy{Rules: loop.Rules{{Name: "compactions", Count: loop.CountCompactions, ResetOn: []loop.Trigger{loop.OnCall}, Ladder: []loop.Step{adviseAt(2), stopAt(3)}}}},
		history: func(h *processortest.History) {
			h.Add(ev(event.KindCompact, nil)).Add(ev(event.KindCompact, nil))
			h.Call("t", `{}`).Result(false, "x")
			h.Add(ev(event.KindTurn, nil)) // a user message does not break it
			for range 3 {
				h.Add(ev(event.KindCompact, nil))
			}
		},
		want: map[int64]string{3: "advise:compaction_loop", 4: "allow", 8: "advise:compaction_loop", 9: "stop:LOOP_DETECTED"},
	},
	// Escalation.
	{
		name:   "advise on every call at or above the threshold",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{{At: 2, Do: loop.DoAdvise, Every: true}}}}},
		history: func(h *processortest.History) {
			for range 4 {
				h.Call("a", `{}`).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 6: "advise:avoid_repeat allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name:   "reject the call, every time, and let the run go on",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{{At: 3, Do: loop.DoReject, Every: true}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`).Call("a", `{}`).Call("b", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "reject:LOOP_DETECTED", 7: "reject:LOOP_DETECTED", 8: "allow"},
	},
	{
		name:   "refuse the signature for the rest of the run; other calls go on; a reset lifts it",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", ResetOn: []loop.Trigger{loop.OnResume}, Ladder: []loop.Step{{At: 2, Do: loop.DoRefuse}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{"x":1}`).Result(false, "x").Call("a", `{"x":1}`)
			h.Call("a", `{"x":2}`).Result(false, "x").Call("a", `{"x":1}`)
			h.Add(ev(event.KindResume, func(e *event.Event) { e.By, e.Why = "ops", "retry" }))
			h.Call("a", `{"x":1}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "reject:LOOP_DETECTED", 5: "allow", 7: "reject:LOOP_DETECTED", 8: "resumed", 9: "allow"},
	},
	{
		name:   "refuse a cycle: every call of the pattern is refused",
		policy: loop.Policy{Rules: loop.Rules{{Name: "cycle", Cycle: 2, MinCycle: 2, Ladder: []loop.Step{{At: 2, Do: loop.DoRefuse}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("b", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("b", `{}`)
			h.Call("a", `{}`).Call("c", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "reject:LOOP_DETECTED", 9: "reject:LOOP_DETECTED", 10: "allow"},
	},
	{
		name: "a rule keyed by path and not by arguments ignores calls that name no path",
		policy: loop.Policy{Rules: loop.Rules{{Name: "read_loop", Identity: []loop.Field{loop.FieldTool, loop.FieldPath}, Window: loop.WindowSliding, Size: 5,
			Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for i := range 3 {
				h.Call("read_file", fmt.Sprintf(`{"line":%d}`, i)).Result(false, "x")
			}
			for i := range 3 {
				callWith(h, "read_file", fmt.Sprintf(`{"line":%d}`, i), "a.go").Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "advise:avoid_repeat allow"},
	},
	{
		name:   "refuse the tool for the rest of the run",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{{At: 2, Do: loop.DoRefuse, Scope: loop.ScopeTool}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{"x":1}`).Result(false, "x").Call("a", `{"x":1}`).Call("a", `{"x":2}`).Call("b", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "reject:LOOP_DETECTED", 5: "reject:LOOP_DETECTED", 6: "allow"},
	},
	{
		name: "a results rule refuses the next calls of a signature whose results never change",
		policy: loop.Policy{Rules: loop.Rules{{Name: "circuit_breaker", Count: loop.CountResults, Window: loop.WindowSliding, Size: 10,
			Ladder: []loop.Step{adviseAt(2), {At: 3, Do: loop.DoRefuse}}}}},
		history: func(h *processortest.History) {
			for range 3 {
				h.Call("poll", `{}`).Result(false, "same")
			}
			h.Call("poll", `{}`).Call("other", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "allow", 5: "advise:avoid_repeat", 6: "allow", 7: "advise:override", 8: "reject:LOOP_DETECTED", 9: "allow"},
	},
	{
		name:   "stop with a typed reason",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{{At: 2, Do: loop.DoStop, Reason: event.ReasonSystemError}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "stop:SYSTEM_ERROR"},
	},
	{
		name:   "inject_steer: override, then a stop with the step's reason on the next repeat",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{{At: 2, Do: loop.DoInjectSteer, Reason: event.ReasonLoopDetected}}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Call("a", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "advise:override reject:LOOP_DETECTED", 5: "stop:LOOP_DETECTED"},
	},
	{
		name:   "complete_with_warning",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{adviseAt(2), step(3, loop.DoCompleteWithWarning)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Result(false, "x").Call("a", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "advise:avoid_repeat allow", 6: "stop:LOOP_DETECTED(completed)"},
	},
	{
		name:   "the loop action: what do: action does",
		policy: loop.Policy{Action: loop.ActionInjectSteer, Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{step(2, loop.DoAction)}}}},
		history: func(h *processortest.History) {
			h.Call("a", `{}`).Result(false, "x").Call("a", `{}`).Call("a", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "advise:override reject:LOOP_DETECTED", 5: "stop:SYSTEM_ERROR"},
	},
	{
		name: "fan-out as a rule: a tool's calls over the run, a nudge at its budget, every call past it rejected",
		policy: loop.Policy{Rules: loop.Rules{{Name: "fan_out", Identity: []loop.Field{loop.FieldTool}, Window: loop.WindowRun, Match: []string{"read_file"},
			Ladder: []loop.Step{{At: 3, Do: loop.DoAdvise, Steer: event.SteerNarrowScope}, {At: 4, Do: loop.DoReject, Every: true, Reason: event.ReasonLimitExceeded}}}}},
		history: func(h *processortest.History) {
			for i := range 5 {
				h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i)).Result(false, "x")
			}
			h.Call("ls", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "advise:narrow_scope allow", 8: "reject:LIMIT_EXCEEDED", 10: "reject:LIMIT_EXCEEDED", 12: "allow"},
	},
	{
		name: "fan-out for every tool: one ladder for all, one tool's budget lifted, one tool's its own",
		policy: loop.Policy{Rules: loop.Rules{{Name: "fan_out", Identity: []loop.Field{loop.FieldTool}, Window: loop.WindowRun,
			Ladder: []loop.Step{{At: 2, Do: loop.DoAdvise, Steer: event.SteerNarrowScope}, {At: 3, Do: loop.DoReject, Every: true, Reason: event.ReasonLimitExceeded}},
			Tools:  map[string]loop.Override{"ls": {Disabled: true}, "spawn_agent": {Ladder: []loop.Step{{At: 2, Do: loop.DoReject, Every: true, Reason: event.ReasonLimitExceeded}}}},
		}}},
		history: func(h *processortest.History) {
			h.Call("grep", `{}`).Result(false, "x").Call("grep", `{}`).Result(false, "x").Call("grep", `{}`)
			h.Call("ls", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x")
			h.Call("spawn_agent", `{}`).Result(false, "x").Call("spawn_agent", `{}`)
		},
		want: map[int64]string{2: "allow", 4: "advise:narrow_scope allow", 6: "reject:LIMIT_EXCEEDED", 7: "allow", 9: "allow", 11: "allow",
			13: "allow", 15: "reject:LIMIT_EXCEEDED"},
	},
	// Tool classes and scope within the run.
	{
		name: "match: a rule watches only its tools, and others do not break its streak",
		policy: loop.Policy{Classes: map[string][]string{"polling": {"job_status", "command_status"}},
			Rules: loop.Rules{{Name: "poll", Match: []string{"polling"}, Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			h.Call("job_status", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x")
			h.Call("job_status", `{}`).Result(false, "x").Call("job_status", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "advise:avoid_repeat allow"},
	},
	{
		name: "per class overrides: polling tools get a later ladder, read-only tools none",
		policy: loop.Policy{Classes: map[string][]string{"polling": {"job_status"}, "read_only": {"read_file"}},
			Rules: loop.Rules{{Name: "same", Ladder: []loop.Step{adviseAt(2)}, Tools: map[string]loop.Override{
				"polling": {Ladder: []loop.Step{adviseAt(4)}}, "read_only": {Disabled: true},
			}}}},
		history: func(h *processortest.History) {
			for range 2 {
				h.Call("read_file", `{}`).Result(false, "x")
			}
			for range 4 {
				h.Call("job_status", `{}`).Result(false, "x")
			}
			h.Call("ls", `{}`).Result(false, "x").Call("ls", `{}`).Result(false, "x")
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "advise:avoid_repeat allow", 14: "allow", 16: "advise:avoid_repeat allow"},
	},
	{
		name: "min_tools: a single-tool agent is never told to use another tool",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_tool", Identity: []loop.Field{loop.FieldTool}, Varied: true, MinTools: 2,
			Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for i := range 4 {
				h.Call("bash", fmt.Sprintf(`{"cmd":"step %d"}`, i)).Result(false, "x")
			}
			h.Call("read_file", `{}`).Result(false, "x")
			for i := range 3 {
				h.Call("bash", fmt.Sprintf(`{"cmd":"again %d"}`, i)).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 16: "advise:vary_approach allow"},
	},
	{
		name: "varied results: one tool failing with varying arguments, not one call failing again",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_tool", Count: loop.CountResults, Only: loop.OnlyFailed, Result: loop.ResultNone,
			Identity: []loop.Field{loop.FieldTool}, Varied: true, Ladder: []loop.Step{{At: 3, Do: loop.DoAdvise, Steer: event.SteerVaryApproach}}}}},
		history: func(h *processortest.History) {
			for range 3 {
				h.Call("build", `{"pkg":"a"}`).Result(true, "error")
			}
			h.Call("build", `{"pkg":"b"}`).Result(false, "ok")
			for _, pkg := range []string{"a", "a", "c"} {
				h.Call("build", fmt.Sprintf(`{"pkg":%q}`, pkg)).Result(true, "error")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "allow", 14: "allow", 15: "advise:vary_approach"},
	},
	{
		name: "varied: the same tool with the same arguments is not varying",
		policy: loop.Policy{Rules: loop.Rules{{Name: "same_tool", Identity: []loop.Field{loop.FieldTool}, Varied: true,
			Ladder: []loop.Step{adviseAt(3)}}}},
		history: func(h *processortest.History) {
			for range 3 {
				h.Call("grep", `{"q":"x"}`).Result(false, "x")
			}
			for i := range 3 {
				h.Call("ls", fmt.Sprintf(`{"d":%d}`, i)).Result(false, "x")
			}
		},
		want: map[int64]string{2: "allow", 4: "allow", 6: "allow", 8: "allow", 10: "allow", 12: "advise:vary_approach allow"},
	},
}

func TestModel(t *testing.T) {
	for _, tc := range modelCases {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.policy
			if p.Action == "" {
				p.Action = loop.ActionFail
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			h := processortest.NewHistory("acme", "model")
			tc.history(h)
			got := decide(p, h)
			for seq := int64(1); seq <= h.Seq(); seq++ {
				if got[seq] != tc.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &h.Events()[seq-1], got[seq], tc.want[seq])
				}
			}
			var head strings.Builder
			for _, r := range p.Rules {
				b, _ := json.Marshal(r)
				fmt.Fprintf(&head, "# rule %s\n", b)
			}
			processortest.GoldenFile(t, filepath.Join("testdata", "model", fileName(tc.name)+".golden"),
				head.String()+processortest.Log(chain(p), h.Events()))
			processortest.Run(t, loop.New(p), h.Events())
		})
	}
}

// fileName turns a case's name into a file name: lower-case letters,
// digits, '_' and '-' for spaces.
func fileName(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == ' ':
			return '-'
		case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9', r == '_', r == '-':
			return r
		}
		return -1
	}, name)
}
