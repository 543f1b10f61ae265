package processors_test

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// stopper stops the run at a call of "boom", naming its rule.
var stopper = toy{"stopper", func(ev *event.Event, out *processors.Out) {
	if ev.Kind == event.KindCall && ev.Tool == "boom" {
		out.Stop(event.ReasonLoopDetected, event.StatusFailed, "boom").Rule = "identical_call"
	}
	if ev.Kind == event.KindCall && ev.Tool == "warn" {
		out.Advise(event.Steer{Kind: event.SteerAvoidRepeat}, "careful")
	}
}}

func TestScopesArePickedAtTheFirstEvent(t *testing.T) {
	strict := toy{"gate", func(ev *event.Event, out *processors.Out) {
		if ev.Kind == event.KindCall {
			out.Reject(event.ReasonPolicyViolation, "strict scope").Rule = "strict"
		}
	}}
	lax := toy{"gate", func(*event.Event, *processors.Out) {}}
	c := processors.NewScoped(func(tenant, agent string) string {
		if agent == "coder" {
			return "agent:coder"
		}
		return "no such scope"
	}, processors.Scope{Procs: []processors.Processor{lax}}, processors.Scope{Name: "agent:coder", Procs: []processors.Processor{strict}})

	for _, tt := range []struct {
		agent, scope, verdict string
	}{{"coder", "agent:coder", "reject"}, {"reviewer", "", "allow"}} {
		h := processortest.NewHistory("acme", "r-"+tt.agent)
		h.Events()[0].Agent = tt.agent
		h.Call("ls", `{}`)
		r := c.NewRun()
		var out processors.Out
		for _, ev := range h.Events() {
			c.Apply(r, &ev, &out)
		}
		if r.Scope != tt.scope || out.Verdict().Kind.String() != tt.verdict {
			t.Errorf("agent %s: scope %q, verdict %s; want %q, %s", tt.agent, r.Scope, out.Verdict().Kind, tt.scope, tt.verdict)
		}
		// The scope survives a snapshot, so a restart serves the run the same.
		b, err := c.Encode(r)
		if err != nil {
			t.Fatal(err)
		}
		back, err := c.Decode(b)
		if err != nil || back.Scope != tt.scope {
			t.Fatalf("decoded scope %q, %v; want %q", back.Scope, err, tt.scope)
		}
		call := processortest.NewHistory("acme", "x").Call("ls", `{}`).Events()[1]
		call.Seq = r.Seq + 1
		c.Apply(back, &call, &out)
		if out.Verdict().Kind.String() != tt.verdict {
			t.Errorf("agent %s after a snapshot: %s; want %s", tt.agent, out.Verdict().Kind, tt.verdict)
		}
	}
}

func TestEveryGuardDecisionNamesARule(t *testing.T) {
	c := processors.NewChain(stopper, watcher)
	h := processortest.NewHistory("acme", "r").Call("warn", `{}`).Call("ls", `{}`).Call("boom", `{}`).Call("ls", `{}`)
	got, _ := processortest.BySeq(c, h.Events(), func(ds []event.Decision) string {
		s := ""
		for _, d := range ds {
			s += d.Kind.String() + "/" + d.Rule + " "
		}
		return s
	})
	want := map[int64]string{
		2: "advise/stopper allow/ ", // a guard's own name when it names no rule; none on a plain allow
		3: "allow/ ",                //
		4: "stop/identical_call ",   // the rule it names
		5: "reject/identical_call ", // a call after a stop carries the stop's rule
	}
	for seq := int64(1); seq <= h.Seq(); seq++ {
		if got[seq] != want[seq] {
			t.Errorf("event %d: %q, want %q", seq, got[seq], want[seq])
		}
	}
}

func TestResume(t *testing.T) {
	resume := func(h *processortest.History, by, auth string) *processortest.History {
		h.Add(event.Event{Kind: event.KindResume, By: by, Why: "the build server is back"})
		h.Events()[len(h.Events())-1].Auth = auth
		return h
	}
	scoped := func(allow ...string) *processors.Chain {
		return processors.NewScoped(nil, processors.Scope{Procs: []processors.Processor{stopper}, Resume: processors.ResumePolicy{Allow: allow}})
	}
	brief := func(ds []event.Decision) string {
		s := ""
		for _, d := range ds {
			s += processortest.Brief(&d) + " "
		}
		return s
	}
	tests := []struct {
		name    string
		chain   *processors.Chain
		history func(h *processortest.History)
		want    map[int64]string
	}{
		{
			name:    "an allowed identity reopens a stopped run",
			chain:   scoped("ops-alice"),
			history: func(h *processortest.History) { resume(h.Call("boom", `{}`), "ops-alice", "").Call("ls", `{}`) },
			want:    map[int64]string{2: "stop:LOOP_DETECTED ", 3: "resumed ", 4: "allow "},
		},
		{
			name:    "anyone, with *",
			chain:   scoped("*"),
			history: func(h *processortest.History) { resume(h.Call("boom", `{}`), "bob", "").Call("ls", `{}`) },
			want:    map[int64]string{2: "stop:LOOP_DETECTED ", 3: "resumed ", 4: "allow "},
		},
		{
			name:    "an identity not allowed changes nothing",
			chain:   scoped("ops-alice"),
			history: func(h *processortest.History) { resume(h.Call("boom", `{}`), "mallory", "").Call("ls", `{}`) },
			want:    map[int64]string{2: "stop:LOOP_DETECTED ", 3: "stale ", 4: "reject:LOOP_DETECTED "},
		},
		{
			name:    "the identity the runner vouches for wins over the one claimed",
			chain:   scoped("ops-alice"),
			history: func(h *processortest.History) { resume(h.Call("boom", `{}`), "ops-alice", "mallory").Call("ls", `{}`) },
			want:    map[int64]string{2: "stop:LOOP_DETECTED ", 3: "stale ", 4: "reject:LOOP_DETECTED "},
		},
		{
			name:    "by default nobody may resume",
			chain:   processors.NewChain(stopper),
			history: func(h *processortest.History) { resume(h.Call("boom", `{}`), "ops-alice", "ops-alice") },
			want:    map[int64]string{2: "stop:LOOP_DETECTED ", 3: "stale "},
		},
		{
			name:    "an ended run cannot be resumed",
			chain:   scoped("*"),
			history: func(h *processortest.History) { resume(h.End(event.StatusCompleted), "ops-alice", "") },
			want:    map[int64]string{3: "stale "},
		},
		{
			name:    "a resume of a run that goes on is accepted, for the detectors it resets",
			chain:   scoped("*"),
			history: func(h *processortest.History) { resume(h.Call("ls", `{}`), "ops-alice", "") },
			want:    map[int64]string{2: "allow ", 3: "resumed "},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := processortest.NewHistory("acme", "r")
			tt.history(h)
			got, _ := processortest.BySeq(tt.chain, h.Events(), brief)
			for seq := int64(1); seq <= h.Seq(); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event %d (%s): %q, want %q", seq, &h.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}
	h := resume(processortest.NewHistory("acme", "golden").Call("boom", `{}`), "mallory", "")
	resume(h, "ops-alice", "").Call("ls", `{}`)
	processortest.GoldenFile(t, "testdata/resume.golden", processortest.Log(scoped("ops-alice"), h.Events()))
}
