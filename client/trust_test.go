package client

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
)

// TestTrustRules feeds decisions to a run that published calls c1 and c2
// and checks which the run takes in.
func TestTrustRules(t *testing.T) {
	d := func(k event.DecisionKind, call string) event.Decision {
		return event.Decision{Kind: k, Tenant: "acme", Run: "r", Seq: 2, Call: call}
	}
	with := func(x event.Decision, f func(*event.Decision)) event.Decision { f(&x); return x }
	tests := []struct {
		name string
		in   []event.Decision
		ids  []string // Nats-Msg-Id of each decision; "" for a fresh one
		want string   // "y" or "n" per decision: taken in or not
		// what the run files afterwards: verdicts of c1, then whether it
		// is stopped
		verdicts string
		stopped  bool
		copies   int // decisions dropped as copies of one taken in
	}{
		{name: "a verdict for a call the run did not publish is ignored",
			in: []event.Decision{d(event.Allow, "c9"), d(event.Reject, "c1")}, want: "ny", verdicts: "reject"},
		{name: "a verdict for another run or tenant is ignored",
			in: []event.Decision{
				with(d(event.Allow, "c1"), func(x *event.Decision) { x.Run = "other" }),
				with(d(event.Allow, "c1"), func(x *event.Decision) { x.Tenant = "evil" }),
				d(event.Reject, "c1"),
			}, want: "nny", verdicts: "reject"},
		{name: "the first final verdict wins",
			in: []event.Decision{d(event.Reject, "c1"), d(event.Allow, "c1"), d(event.Repair, "c1"), d(event.Stale, "c1")}, want: "ynnn", verdicts: "reject"},
		{name: "stale is final",
			in: []event.Decision{d(event.Stale, "c1"), d(event.Allow, "c1")}, want: "yn", verdicts: "stale"},
		{name: "a defer is followed by exactly one release",
			in:   []event.Decision{d(event.Defer, "c1"), d(event.Defer, "c1"), d(event.Allow, "c1"), d(event.Allow, "c1"), d(event.Reject, "c1")},
			want: "ynynn", verdicts: "defer allow"},
		{name: "after a defer only its release, an allow, counts",
			in:   []event.Decision{d(event.Defer, "c1"), d(event.Reject, "c1"), d(event.Repair, "c1"), d(event.Stale, "c1"), d(event.Allow, "c1")},
			want: "ynnny", verdicts: "defer allow"},
		{name: "a stop ends a deferred call's wait",
			in: []event.Decision{d(event.Defer, "c1"), d(event.Stop, "c1"), d(event.Allow, "c1")}, want: "yyn", verdicts: "defer stop", stopped: true},
		{name: "a defer after the final verdict is ignored",
			in: []event.Decision{d(event.Allow, "c1"), d(event.Defer, "c1")}, want: "yn", verdicts: "allow"},
		{name: "a stop for a waiting call is its verdict and ends the run; a later allow is ignored",
			in: []event.Decision{d(event.Stop, "c1"), d(event.Allow, "c1")}, want: "yn", verdicts: "stop", stopped: true},
		{name: "a stop after the call's verdict still ends the run",
			in: []event.Decision{d(event.Reject, "c1"), d(event.Stop, "c1")}, want: "yy", verdicts: "reject", stopped: true},
		{name: "a stop naming no call ends the run",
			in: []event.Decision{d(event.Stop, "")}, want: "y", stopped: true},
		{name: "a stop naming a call the run did not publish is ignored",
			in: []event.Decision{d(event.Stop, "c9")}, want: "n"},
		{name: "an output counts once per published call",
			in: []event.Decision{d(event.Output, "c1"), d(event.Output, "c1"), d(event.Output, "c9")}, want: "ynn"},
		{name: "a settled counts once for each published call it lists",
			in: []event.Decision{
				with(d(event.Settled, ""), func(x *event.Decision) { x.Calls = []string{"c1"}; x.Missing = []string{"c2"} }),
				with(d(event.Settled, ""), func(x *event.Decision) { x.Calls = []string{"c1", "c2"} }),
				with(d(event.Settled, ""), func(x *event.Decision) { x.Calls = []string{"c9"} }),
			}, want: "ynn"},
		{name: "advice and pressure always count",
			in: []event.Decision{d(event.Advise, "c9"), d(event.Pressure, "")}, want: "yy"},
		{name: "a verdict without a call and a kind this client does not know are not taken in",
			in: []event.Decision{d(event.Reject, ""), d(event.DecisionKind(200), "c1")}, want: "nn"},
		{name: "a copy of a decision taken in is dropped by its id",
			in: []event.Decision{d(event.Advise, ""), d(event.Advise, "")}, ids: []string{"acme.r.2.0", "acme.r.2.0"}, want: "yn", copies: 1},
		{name: "a forgery carrying the id of a real decision does not make the real one a duplicate",
			in:   []event.Decision{d(event.Allow, "c9"), d(event.Reject, "c1")},
			ids:  []string{"acme.r.2.0", "acme.r.2.0"},
			want: "ny", verdicts: "reject"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Run{c: &Client{tenant: "acme"}, id: "r", advice: make(chan event.Decision, 8), done: make(chan struct{})}
			r.calls.add("c1", "ls")
			r.calls.add("c2", "ls")
			var got strings.Builder
			ignored := 0
			for i, x := range tt.in {
				x.V = event.Version
				id := fmt.Sprintf("acme.r.%d.0", 100+i)
				if i < len(tt.ids) {
					id = tt.ids[i]
				}
				if r.deliver(id, event.AppendDecision(nil, &x), false) {
					got.WriteByte('y')
				} else {
					got.WriteByte('n')
					ignored++
				}
			}
			if got.String() != tt.want {
				t.Errorf("taken in: %s, want %s", got.String(), tt.want)
			}
			var verdicts []string
			for {
				v, ok := r.box.take(verdictKey("c1"))
				if !ok {
					break
				}
				verdicts = append(verdicts, v.Kind.String())
			}
			if s := strings.Join(verdicts, " "); s != tt.verdicts {
				t.Errorf("verdicts filed for c1: %q, want %q", s, tt.verdicts)
			}
			if stopped := r.stop != nil; stopped != tt.stopped {
				t.Errorf("stopped: %t, want %t", stopped, tt.stopped)
			}
			// A copy dropped by its id is not news: only refusals count.
			if n, want := int(r.c.stats.ignored.Load()), ignored-tt.copies; n != want {
				t.Errorf("counted %d ignored, want %d", n, want)
			}
		})
	}
}

// TestCallsAreBounded checks that a run remembers its last maxCalls calls:
// a verdict for an older one is ignored like one for a call never made.
func TestCallsAreBounded(t *testing.T) {
	var cs calls
	for i := range maxCalls + 1 {
		cs.add(fmt.Sprint("c", i), "ls")
	}
	if cs.get("c0") != nil {
		t.Error("the oldest call is still remembered past the bound")
	}
	if cs.get("c1") == nil || cs.get(fmt.Sprint("c", maxCalls)) == nil {
		t.Error("a call within the bound was forgotten")
	}
	if len(cs.byID) != maxCalls || len(cs.order) != maxCalls {
		t.Errorf("remembers %d calls in %d slots, want %d", len(cs.byID), len(cs.order), maxCalls)
	}
}
