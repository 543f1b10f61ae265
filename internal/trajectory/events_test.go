package trajectory_test

import (
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/trajectory"
)

const line = `{"run": "mini-gemini3pro/astropy__astropy-12907", "label": "resolved", "claimed": "completed", "ws": "/testbed",
 "agent": "mini-swe-agent 1.15.0", "unknown": [1, 2],
 "tools": [{"name": "bash", "schema": "{\"type\": \"object\"}", "kind": "shell"}],
 "steps": [{"i": 0, "kind": "act", "tin": 1662, "tout": 106, "cost": 4596, "ctx": 1768, "win": 1048576,
            "calls": [{"id": "s0c0", "tool": "bash", "args": "{\"command\": \"ls -R\"}", "path": "",
                       "result": {"err": true, "exit": 2, "out": "no such file", "verify": false, "why": "exit code"}}]},
           {"i": 1, "kind": "format_error", "tin": 10, "tout": 5, "cost": 7, "ctx": 1800, "win": 1048576, "calls": []},
           {"i": 2, "kind": "act", "calls": [{"id": "s2c0", "tool": "bash", "args": "{\"command\": \"pytest\"}", "result":
             {"err": false, "exit": 0, "out": "ok", "verify": true, "chg": {"files": 1, "paths": ["a.py"]}}},
             {"id": "s2c1", "tool": "bash", "args": "{\"command\": \"sleep 1000\"}", "result": null}]}]}`

func TestEvents(t *testing.T) {
	r, err := trajectory.Parse([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	m := trajectory.DefaultMapping()
	evs := m.Events(&r)
	want := []event.Kind{event.KindRunStart, event.KindStep, event.KindCall, event.KindResult, event.KindStep,
		event.KindStep, event.KindCall, event.KindResult, event.KindCall, event.KindRunEnd}
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d: %+v", len(evs), len(want), evs)
	}
	for i, ev := range evs {
		if ev.Kind != want[i] || ev.Seq != int64(i+1) || ev.Tenant != "eval" || ev.Run != "mini-gemini3pro/astropy__astropy-12907" {
			t.Errorf("event %d: %s seq %d %s/%s", i, ev.Kind, ev.Seq, ev.Tenant, ev.Run)
		}
		if err := ev.Validate(); err != nil {
			t.Errorf("event %d: %v", i, err)
		}
		if i > 0 && ev.TS <= evs[i-1].TS {
			t.Errorf("event %d: ts %d does not increase", i, ev.TS)
		}
	}
	start, step, res := evs[0], evs[1], evs[3]
	if start.Agent != "mini-swe-agent 1.15.0" || start.Workspace != "/testbed" || len(start.Tools) != 1 || start.Tools[0].Schema != `{"type": "object"}` || start.Tools[0].Kind != event.ToolShell {
		t.Errorf("run start %+v", start)
	}
	if step.Turn != 0 || step.TokensIn != 1662 || step.TokensOut != 106 || step.Cost != 4596 || step.Context != 1768 || step.Window != 1048576 {
		t.Errorf("step %+v", step)
	}
	if !res.Err || res.Exit != 2 || res.Out != "no such file" || res.Call != "s0c0" {
		t.Errorf("result %+v", res)
	}
	if v := evs[7]; !v.Verify || v.Changes == nil || v.Changes.Paths[0] != "a.py" {
		t.Errorf("verifying result %+v", v)
	}
	if end := evs[9]; end.Status != event.StatusCompleted {
		t.Errorf("run end %+v", end)
	}

	m.OneTurn = true
	for _, ev := range m.Events(&r) {
		if ev.Kind == event.KindStep && ev.Turn != 1 {
			t.Errorf("with OneTurn, step %d has turn %d", ev.Step, ev.Turn)
		}
	}
}

func TestParseErrors(t *testing.T) {
	for in, says := range map[string]string{
		`{"steps": []}`: `no "run" id`,
		`{"run": "r", "steps": [{"calls": [{"id": "", "tool": "bash"}]}]}`: `steps[0].calls[0] needs an "id"`,
		`not json`: "not a recorded run",
	} {
		if _, err := trajectory.Parse([]byte(in)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%s) = %v; want an error saying %q", in, err, says)
		}
	}
	if trajectory.IsRun([]byte(`{"v":1,"k":1}`)) || !trajectory.IsRun([]byte(line)) {
		t.Error("IsRun tells runs from events wrongly")
	}
}

func TestRunID(t *testing.T) {
	for in, want := range map[string]string{
		"mini/astropy__astropy-12907": "mini/astropy__astropy-12907",
		"a.b c*d>e":                   "a-b-c-d-e",
		"":                            "run",
	} {
		if got := trajectory.RunID(in); got != want {
			t.Errorf("RunID(%q) = %q, want %q", in, got, want)
		}
		if err := event.CheckID(trajectory.RunID(in)); err != nil {
			t.Errorf("RunID(%q): %v", in, err)
		}
	}
}
