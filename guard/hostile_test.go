package guard_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
)

// TestHostileEventsCost: events that pass event.Validate and are as large
// and as awkward as a sender can make them, 1 MiB and more (sixteen times
// the default payload limit, which an operator may raise), each go through
// every guard of the default policy within a bound far above linear work. A cost that
// grows with the square of the size overshoots it by far (a 1 MiB cd chain
// took the shell classifier nine minutes).
func TestHostileEventsCost(t *testing.T) {
	if testing.Short() {
		t.Skip("applies events of 1 MiB")
	}
	const size, bound = 1 << 20, 10 * time.Second
	rep := func(s string) string { return strings.Repeat(s, size/len(s)) }
	js := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(prefix, i)
		}
		return out
	}
	bash := func(cmd string) event.Event {
		return event.Event{Kind: event.KindCall, Call: "c", Tool: "bash", Args: js(map[string]string{"command": cmd})}
	}
	call := func(tool, args, path string) event.Event {
		return event.Event{Kind: event.KindCall, Call: "c", Tool: tool, Args: args, Path: path}
	}
	longPath := strings.Repeat("a/", event.MaxPathLen/2-1) + "a"
	tests := []struct {
		name string
		evs  []event.Event
	}{
		{"a shell line of commands", []event.Event{bash(rep("echo a; "))}},
		{"a shell line of deletes", []event.Event{bash("rm -f " + rep("../a "))}},
		{"a shell line of redirections", []event.Event{bash(rep("x>/a "))}},
		{"a shell line of cds", []event.Event{bash(rep("cd a && "))}},
		{"a shell line of substitutions", []event.Event{bash(rep("$(a) "))}},
		{"a shell line of unclosed definitions", []event.Event{bash(rep("f(){ g|"))}},
		{"a shell argument of one long path", []event.Event{bash("cat /" + rep("a/"))}},
		{"arguments of many paths", []event.Event{call("edit_file", js(map[string][]string{"paths": names("src/f", size/12)}), "")}},
		{"arguments of one long path", []event.Event{call("edit_file", js(map[string]string{"path": rep("a/")}), "")}},
		{"arguments nested as deep as allowed", []event.Event{call("edit_file", `{"a":`+strings.Repeat("[", event.MaxJSONDepth-1)+rep("1,")+"1"+strings.Repeat("]", event.MaxJSONDepth-1)+"}", "")}},
		{"arguments of one long string", []event.Event{call("edit_file", js(map[string]string{"content": rep("x\n"), "path": "a"}), "")}},
		{"a patch of many headers", []event.Event{call("apply_patch", js(map[string]string{"patch": rep("--- a/x\n+++ b/x\n")}), "")}},
		{"the longest path", []event.Event{call("edit_file", `{}`, longPath)}},
		{"the longest path climbing", []event.Event{call("edit_file", `{}`, strings.Repeat("../", event.MaxPathLen/3))}},
		{"the most changed paths of the longest length", []event.Event{call("edit_file", `{"path":"a"}`, ""),
			{Kind: event.KindResult, Call: "c", Out: "ok", Changes: &event.Changes{Files: 1, Paths: func() []string {
				ps := names("", event.MaxChangedPaths)
				for i := range ps {
					ps[i] = longPath[:event.MaxPathLen-len(ps[i])] + ps[i]
				}
				return ps
			}()}}}},
		{"an output of many failure lines", []event.Event{bash("pytest"), {Kind: event.KindResult, Call: "c", Out: rep("FAILED x.py::t - a/b/c\n"), Err: true, Exit: 1}}},
		{"an output of one long line", []event.Event{bash("pytest"), {Kind: event.KindResult, Call: "c", Out: rep("/ws/a"), Err: true, Exit: 1}}},
		{"a document of many items", []event.Event{{Kind: event.KindStep, Doc: js(names("x", size/8)), DocSchema: "plan"}}},
		{"a round of the most calls", []event.Event{{Kind: event.KindRound, Calls: names("c", event.MaxRoundCalls)}}},
	}
	for _, tt := range tests {
		c := guard.Chain(guard.DefaultPolicy())
		r := c.NewRun()
		var out processors.Out
		start := event.Event{V: event.Version, Kind: event.KindRunStart, Tenant: "t", Run: "r", Seq: 1, TS: 1, Workspace: "/ws",
			Tools: []event.Schema{
				{Name: "bash", Schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`},
				{Name: "edit_file", Schema: `{"type":"object"}`}, {Name: "apply_patch", Schema: `{"type":"object"}`},
			},
			Docs: []event.Schema{{Name: "plan", Schema: `{"type":"array","items":{"type":"string"}}`}}}
		c.Apply(r, &start, &out)
		for i, ev := range tt.evs {
			ev.V, ev.Tenant, ev.Run, ev.Seq, ev.TS = event.Version, "t", "r", int64(i+2), int64(1000*(i+2))
			if err := ev.Validate(); err != nil {
				t.Fatalf("%s: %v", tt.name, err)
			}
			begin := time.Now()
			c.Apply(r, &ev, &out)
			d := time.Since(begin)
			t.Logf("%-46s %-6s %7d bytes: %v", tt.name, ev.Kind, len(event.AppendEvent(nil, &ev)), d)
			if d > bound {
				t.Errorf("%s: applying the %s took %v; the bound is %v", tt.name, ev.Kind, d, bound)
			}
		}
	}
}
