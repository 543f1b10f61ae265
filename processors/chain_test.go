package processors_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// toy is a processor scripted by a function, with a state that records the
// arguments of every call it saw.
type toy struct {
	name  string
	apply func(ev *event.Event, out *processors.Out)
}

type toyState struct {
	Seen []string `msgpack:"seen"`
}

func (t toy) Name() string               { return t.name }
func (t toy) NewState() processors.State { return &toyState{} }
func (t toy) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	if ev.Kind == event.KindCall {
		s := st.(*toyState)
		s.Seen = append(s.Seen, ev.Args)
	}
	t.apply(ev, out)
}

var (
	repairer = toy{"repair", func(ev *event.Event, out *processors.Out) {
		if ev.Kind == event.KindCall && strings.Contains(ev.Args, "file_path") {
			out.Repair(strings.ReplaceAll(ev.Args, "file_path", "path"), "renamed file_path to path")
		}
	}}
	refuser = toy{"refuse", func(ev *event.Event, out *processors.Out) {
		switch {
		case ev.Kind == event.KindCall && ev.Tool == "busy":
			out.Defer("too many calls in flight")
		case ev.Kind == event.KindCall && ev.Tool == "rm":
			out.Reject(event.ReasonPolicyViolation, "no").Rule = "shell"
		case ev.Kind == event.KindCall && ev.Tool == "boom":
			out.Stop(event.ReasonLimitExceeded, event.StatusFailed, "over budget").Rule = "max_steps"
		case ev.Kind == event.KindHeartbeat:
			out.SetTimer("lease", 5000, ev.Seq)
		}
	}}
	watcher = toy{"watch", func(*event.Event, *processors.Out) {}}
)

func apply(c *processors.Chain, r *processors.Run, ev event.Event) *processors.Out {
	var out processors.Out
	c.Apply(r, &ev, &out)
	return &out
}

func kinds(out *processors.Out) string {
	var s []string
	for _, d := range out.Decisions {
		k := d.Kind.String()
		if d.Args != "" {
			k += "(" + d.Args + ")"
		}
		s = append(s, k)
	}
	return strings.Join(s, " ")
}

func TestChainRepairReachesLaterProcessors(t *testing.T) {
	c := processors.NewChain(repairer, watcher)
	r := c.NewRun()
	h := processortest.NewHistory("acme", "r").Call("read_file", `{"file_path":"a"}`)
	apply(c, r, h.Events()[0])
	out := apply(c, r, h.Events()[1])
	if got := kinds(out); got != `repair({"path":"a"})` {
		t.Errorf("decisions %s, want a single repair carrying the repaired args", got)
	}
	if seen := r.Parts[1].(*toyState).Seen; len(seen) != 1 || seen[0] != `{"path":"a"}` {
		t.Errorf("the later processor saw %q, want the repaired args", seen)
	}
}

func TestChainLaterVerdictReplacesRepair(t *testing.T) {
	c := processors.NewChain(repairer, refuser, watcher)
	for tool, want := range map[string]string{
		"busy": `defer({"path":"a"})`,
		"rm":   `reject({"path":"a"})`,
		"boom": `stop({"path":"a"})`,
	} {
		r := c.NewRun()
		h := processortest.NewHistory("acme", "r").Call(tool, `{"file_path":"a"}`)
		apply(c, r, h.Events()[0])
		out := apply(c, r, h.Events()[1])
		if got := kinds(out); got != want {
			t.Errorf("%s: decisions %s, want %s: one verdict, keeping the repaired args", tool, got, want)
		}
		if v := out.Verdict(); v == nil || v.Kind.String() != strings.SplitN(want, "(", 2)[0] {
			t.Errorf("%s: verdict %v", tool, v)
		}
		if len(r.Parts[2].(*toyState).Seen) != 0 {
			t.Errorf("%s: a processor after a final verdict saw the call", tool)
		}
	}
}

func TestChainAfterEnd(t *testing.T) {
	c := processors.NewChain(refuser)
	for _, tc := range []struct {
		name   string
		finish func(h *processortest.History)
		want   map[event.Kind]string
	}{
		{
			name:   "ended",
			finish: func(h *processortest.History) { h.End(event.StatusCompleted) },
			want:   map[event.Kind]string{event.KindCall: "stale", event.KindResult: "stale", event.KindStep: "stale", event.KindHeartbeat: "stale", event.KindTimer: ""},
		},
		{
			name:   "stopped",
			finish: func(h *processortest.History) { h.Call("boom", `{}`) },
			want:   map[event.Kind]string{event.KindCall: "reject", event.KindResult: "stale", event.KindStep: "stale", event.KindHeartbeat: "stale", event.KindTimer: ""},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := processortest.NewHistory("acme", "r")
			tc.finish(h)
			r := c.NewRun()
			for _, ev := range h.Events() {
				apply(c, r, ev)
			}
			for _, k := range []event.Kind{event.KindCall, event.KindResult, event.KindStep, event.KindHeartbeat, event.KindTimer} {
				ev := event.Event{Kind: k, Call: "late", Tool: "ls", Timer: "lease", Gen: 1}
				h.Add(ev)
				out := apply(c, r, h.Events()[len(h.Events())-1])
				if got := kinds(out); got != tc.want[k] {
					t.Errorf("%s after the run %s: %q, want %q", k, tc.name, got, tc.want[k])
				}
				if k == event.KindCall && (out.Verdict() == nil || out.Verdict().Call != "late") {
					t.Errorf("the late call got no verdict of its own")
				}
				if len(out.Timers) != 0 {
					t.Errorf("%s after the end set timers", k)
				}
			}
			if tc.name == "stopped" && r.Reason != event.ReasonLimitExceeded {
				t.Errorf("run reason %q", r.Reason)
			}
		})
	}
}

func TestChainTimers(t *testing.T) {
	c := processors.NewChain(refuser)
	r := c.NewRun()
	h := processortest.NewHistory("acme", "r").Add(event.Event{Kind: event.KindHeartbeat})
	out := apply(c, r, h.Events()[0])
	if len(out.Timers) != 0 {
		t.Fatal("a run start set a timer")
	}
	out = apply(c, r, h.Events()[1])
	if fmt.Sprint(out.Timers) != "[{lease 5000 2}]" {
		t.Errorf("timers %v, want the lease set by the heartbeat", out.Timers)
	}
	// A timer event has no sequence: it is not a duplicate of anything.
	h.Timer("lease", 2)
	for range 2 {
		if out = apply(c, r, h.Events()[2]); out.Duplicate() {
			t.Error("a timer event was taken for a duplicate")
		}
	}
	// A timer for a run the chain never saw start changes nothing.
	fresh := c.NewRun()
	if out = apply(c, fresh, h.Events()[2]); len(out.Decisions) != 0 || fresh.Status != processors.StatusNew {
		t.Errorf("a timer started a run: %s, status %d", kinds(out), fresh.Status)
	}
}

func TestChainEndedFlag(t *testing.T) {
	c := processors.NewChain(refuser)
	r := c.NewRun()
	h := processortest.NewHistory("acme", "r").End(event.StatusCompleted)
	apply(c, r, h.Events()[0])
	if out := apply(c, r, h.Events()[1]); !out.Ended() {
		t.Error("run_end did not mark the event as ending the run")
	}
	r = c.NewRun()
	h = processortest.NewHistory("acme", "r").Call("boom", "{}")
	apply(c, r, h.Events()[0])
	if out := apply(c, r, h.Events()[1]); !out.Ended() || out.Stopped() == nil || out.Stopped().Rule != "max_steps" {
		t.Error("a stop did not mark the event as ending the run")
	}
}
