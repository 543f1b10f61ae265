package round_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/round"
)

// refuser stands for the guards before the barrier: it rejects calls of
// the tool "bad" and stops the run at a call of the tool "fatal".
type refuser struct{}

func (refuser) Name() string               { return "refuser" }
func (refuser) NewState() processors.State { return &struct{}{} }
func (refuser) Apply(_ processors.State, ev *event.Event, out *processors.Out) {
	switch {
	case ev.Kind != event.KindCall:
	case ev.Tool == "bad":
		out.Reject(event.ReasonPolicyViolation, "bad tool")
	case ev.Tool == "fatal":
		out.Stop(event.ReasonLoopDetected, event.StatusFailed, "fatal tool")
	}
}

// call appends a call with the given id.
func call(h *processortest.History, id, tool string) *processortest.History {
	return h.Add(event.Event{Kind: event.KindCall, Call: id, Tool: tool, Args: `{}`})
}

// abandoned appends an abandoned result of call id.
func abandoned(h *processortest.History, id string) *processortest.History {
	return h.Add(event.Event{Kind: event.KindResult, Call: id, Abandoned: true})
}

// brief renders decisions as "allow", "reject", "stop" and
// "settled[calls|missing M|refused R|rule]" (refused only when there are
// some).
func brief(ds []event.Decision) string {
	var parts []string
	for _, d := range ds {
		if d.Kind != event.Settled {
			parts = append(parts, d.Kind.String())
			continue
		}
		refused := ""
		if len(d.Refused) > 0 {
			refused = "|refused " + strings.Join(d.Refused, " ")
		}
		parts = append(parts, fmt.Sprintf("settled[%s|missing %s%s|%s]", strings.Join(d.Calls, " "), strings.Join(d.Missing, " "), refused, d.Rule))
	}
	return strings.Join(parts, " ")
}

func TestRefusedCalls(t *testing.T) {
	tests := []struct {
		name    string
		history *processortest.History
		want    []string // per event, after the run start
	}{
		{
			name: "a rejected call settles with the round's last result, marked refused",
			history: results(call(call(call(announce(history(), 0, "c1", "c2", "c3"), "c1", "ls"), "c2", "ls"), "c3", "bad"),
				"c2", "c1"),
			want: []string{"", "allow", "allow", "reject", "", "settled[c1 c2 c3|missing |refused c3|]"},
		},
		{
			name:    "the refusal can be what completes the round",
			history: call(results(call(announce(history(), 0, "c1", "c2"), "c1", "ls"), "c1"), "c2", "bad"),
			want:    []string{"", "allow", "", "reject settled[c1 c2|missing |refused c2|]"},
		},
		{
			name:    "a round whose every call is refused settles with no result at all",
			history: call(call(announce(history(), 0, "c1", "c2"), "c1", "bad"), "c2", "bad"),
			want:    []string{"", "reject", "reject settled[c1 c2|missing |refused c1 c2|]"},
		},
		{
			name:    "a stopped call settles its round after the stop",
			history: call(results(call(announce(history(), 0, "c1", "c2"), "c1", "ls"), "c1"), "c2", "fatal"),
			want:    []string{"", "allow", "", "stop settled[c1 c2|missing |refused c2|]"},
		},
		{
			name:    "a refusal before the round is announced does not count, like a result",
			history: results(announce(call(history(), "c1", "bad"), 1000, "c1", "c2"), "c2").Timer("round-3", 3),
			want:    []string{"reject", "timer(round-3,1000,3)", "", "settled[c1 c2|missing c1|wait]"},
		},
		{
			name:    "the wait runs out: missing and refused are apart",
			history: call(announce(history(), 5000, "c1", "c2", "c3"), "c2", "bad").Timer("round-2", 2),
			want:    []string{"timer(round-2,5000,2)", "reject", "settled[c1 c2 c3|missing c1 c3|refused c2|wait]"},
		},
		{
			name:    "a refused call counts in every open round that lists it",
			history: results(call(announce(announce(history(), 0, "c1", "c2"), 0, "c2"), "c2", "bad"), "c1"),
			want:    []string{"", "", "reject settled[c2|missing |refused c2|]", "settled[c1 c2|missing |refused c2|]"},
		},
		{
			name:    "a result for a refused call changes nothing more",
			history: results(call(announce(history(), 0, "c1", "c2"), "c1", "bad"), "c1", "c2"),
			want:    []string{"", "reject", "", "settled[c1 c2|missing |refused c1|]"},
		},
		{
			name:    "an abandoned call counts as settled",
			history: abandoned(results(announce(history(), 0, "c1", "c2"), "c2"), "c1"),
			want:    []string{"", "", "settled[c1 c2|missing |]"},
		},
		{
			name:    "an allowed call is not settled by its verdict",
			history: call(announce(history(), 0, "c1"), "c1", "ls"),
			want:    []string{"", "allow"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := processors.NewChain(refuser{}, round.New(round.DefaultPolicy()))
			r := c.NewRun()
			var out processors.Out
			var got []string
			for i, ev := range tt.history.Events() {
				c.Apply(r, &ev, &out)
				if i == 0 {
					continue
				}
				s := brief(out.Decisions)
				for _, tm := range out.Timers {
					if tm.After >= 0 {
						s = strings.TrimSpace(s + fmt.Sprintf(" timer(%s,%d,%d)", tm.Name, tm.After, tm.Gen))
					}
				}
				got = append(got, s)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestDeadLetteredCall(t *testing.T) {
	c := processors.NewChain(refuser{}, round.New(round.DefaultPolicy()))
	r := c.NewRun()
	var out processors.Out
	for _, ev := range results(announce(history(), 0, "c1", "c2"), "c1").Events() {
		c.Apply(r, &ev, &out)
	}
	// The runner dead-letters the event of call c2 and rejects it.
	reject := event.Decision{V: event.Version, Kind: event.Reject, Tenant: "acme", Run: "r", Seq: 9, TS: processortest.BaseTS, Call: "c2", Reason: event.ReasonInvalidEvent}
	c.Refuse(r, &reject, &out)
	if got := brief(out.Decisions); got != "reject settled[c1 c2|missing |refused c2|]" {
		t.Fatalf("got %s", got)
	}
	if d := out.Decisions[1]; d.Seq != 9 || d.Guard != round.Name || d.Call != "" {
		t.Errorf("settled %+v", d)
	}
	// Once the run is over, a dead-lettered call changes nothing more.
	c.Apply(r, &event.Event{V: event.Version, Kind: event.KindRunEnd, Tenant: "acme", Run: "r", Seq: 10, TS: processortest.BaseTS, Status: event.StatusCompleted}, &out)
	c.Refuse(r, &reject, &out)
	if got := brief(out.Decisions); got != "reject" {
		t.Fatalf("after the run end: %s", got)
	}
}

// refusedHistory is the scenario of the refused golden log: rounds settled
// by results, a rejected call, an abandoned call and a stopped call.
func refusedHistory() *processortest.History {
	h := announce(history(), 0, "c1", "c2", "c3", "c4")
	call(call(call(call(h, "c1", "read_file"), "c2", "bad"), "c3", "read_file"), "c4", "grep")
	abandoned(results(h, "c1"), "c3")
	results(h, "c4").Step()
	announce(h, 30000, "c5", "c6")
	call(call(h, "c5", "bad"), "c6", "ls")
	results(h, "c6").Timer("round-11", 11).Step()
	announce(h, 0, "c7", "c8")
	call(results(call(h, "c7", "ls"), "c7"), "c8", "fatal")
	return h
}

func TestGoldenRefused(t *testing.T) {
	processortest.Golden(t, processors.NewChain(refuser{}, round.New(round.DefaultPolicy())), refusedHistory().Events(), "refused")
}

func TestConformanceRefused(t *testing.T) {
	processortest.RunAfter(t, round.New(round.DefaultPolicy()), refusedHistory().Events(), refuser{})
}
