package processortest

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Run checks that p obeys the processor contract over history, which
// should exercise p's decisions (a history in which p decides nothing
// proves little).
func Run(t *testing.T, p processors.Processor, history []event.Event) {
	t.Helper()
	RunAfter(t, p, history)
}

// RunAfter checks p as Run does, in a chain where the processors before
// come first: for a processor that reacts to what others decide, such as
// the round barrier to the calls they refuse.
func RunAfter(t *testing.T, p processors.Processor, history []event.Event, before ...processors.Processor) {
	t.Helper()
	k := kit{p: p, before: before}
	t.Run("determinism", func(t *testing.T) { k.determinism(t, history) })
	t.Run("duplicate-delivery", func(t *testing.T) { k.duplicates(t, history) })
	t.Run("snapshot-round-trip", func(t *testing.T) { k.snapshots(t, history) })
	t.Run("odd-input", func(t *testing.T) { k.oddInput(t, history) })
}

// kit is the processor under test and the processors before it.
type kit struct {
	p      processors.Processor
	before []processors.Processor
}

func (k kit) chain() *processors.Chain {
	return processors.NewChain(append(slices.Clip(k.before), k.p)...)
}

// step is what applying one event left behind.
type step struct {
	decisions []byte // the decisions, encoded back to back
	snapshot  []byte
	guards    []string // Guard of each decision
}

// replay applies events to r in c and records each step.
func replay(t *testing.T, c *processors.Chain, r *processors.Run, events []event.Event) []step {
	t.Helper()
	var out processors.Out
	steps := make([]step, 0, len(events))
	for i := range events {
		ev := events[i]
		c.Apply(r, &ev, &out)
		var st step
		for j := range out.Decisions {
			st.decisions = event.AppendDecision(st.decisions, &out.Decisions[j])
			st.guards = append(st.guards, out.Decisions[j].Guard)
		}
		for _, tm := range out.Timers {
			st.decisions = fmt.Appendf(st.decisions, "timer %s %d %d;", tm.Name, tm.After, tm.Gen)
		}
		var err error
		if st.snapshot, err = c.Encode(r); err != nil {
			t.Fatalf("event %d (%s): encoding state: %v", i, &ev, err)
		}
		steps = append(steps, st)
	}
	return steps
}

func (k kit) determinism(t *testing.T, history []event.Event) {
	p := k.p
	a := replay(t, k.chain(), k.chain().NewRun(), history)
	c := k.chain()
	b := replay(t, c, c.NewRun(), history)
	decided := false
	for i := range a {
		if !bytes.Equal(a[i].decisions, b[i].decisions) {
			t.Fatalf("event %d (%s): decisions differ between two runs of the same history", i, &history[i])
		}
		if !bytes.Equal(a[i].snapshot, b[i].snapshot) {
			t.Fatalf("event %d (%s): state differs between two runs of the same history", i, &history[i])
		}
		decided = decided || slices.Contains(a[i].guards, p.Name())
	}
	if !decided {
		t.Errorf("%s made no decision of its own over the history; give the kit a history that exercises it", p.Name())
	}
}

func (k kit) duplicates(t *testing.T, history []event.Event) {
	c := k.chain()
	clean := replay(t, c, c.NewRun(), history)

	r := c.NewRun()
	var out processors.Out
	for i := range history {
		got := replay(t, c, r, history[i:i+1])[0]
		if !bytes.Equal(got.decisions, clean[i].decisions) || !bytes.Equal(got.snapshot, clean[i].snapshot) {
			t.Fatalf("event %d (%s): differs from the clean run after earlier duplicates", i, &history[i])
		}
		for _, again := range []int{i, 0} {
			ev := history[again]
			c.Apply(r, &ev, &out)
			// Timer events carry no sequence: the processors themselves
			// must make a second firing harmless.
			if (!out.Duplicate() && ev.Kind != event.KindTimer) || len(out.Decisions) != 0 || len(out.Timers) != 0 {
				t.Fatalf("event %d (%s) delivered again after event %d: want no effect, got %d decisions and %d timers", again, &ev, i, len(out.Decisions), len(out.Timers))
			}
			snap, _ := c.Encode(r)
			if !bytes.Equal(snap, clean[i].snapshot) {
				t.Fatalf("event %d (%s) delivered again after event %d changed the state", again, &ev, i)
			}
		}
	}
}

func (k kit) snapshots(t *testing.T, history []event.Event) {
	c := k.chain()
	clean := replay(t, c, c.NewRun(), history)
	for i := range history {
		r, err := c.Decode(clean[i].snapshot)
		if err != nil {
			t.Fatalf("after event %d: decoding the snapshot: %v", i, err)
		}
		again, err := c.Encode(r)
		if err != nil || !bytes.Equal(again, clean[i].snapshot) {
			t.Fatalf("after event %d: snapshot does not survive decode and encode (err %v)", i, err)
		}
		rest := replay(t, c, r, history[i+1:])
		for j, s := range rest {
			k := i + 1 + j
			if !bytes.Equal(s.decisions, clean[k].decisions) || !bytes.Equal(s.snapshot, clean[k].snapshot) {
				t.Fatalf("restored after event %d, event %d (%s) went differently than without the restore", i, k, &history[k])
			}
		}
	}
}

// oddInput applies events a careless or hostile agent might send, on a
// fresh run and after the history; none of them may panic.
func (k kit) oddInput(t *testing.T, history []event.Event) {
	p := k.p
	odd := []event.Event{
		{Kind: event.KindCall, Call: "x1", Tool: "t", Args: `{not json`},
		{Kind: event.KindResult, Call: "never-called", Err: true},
		{Kind: event.KindCall, Call: "x2", Tool: "t", Path: "../../etc/passwd"},
		{Kind: event.KindStep},
		{Kind: event.KindStep, Step: 1 << 40},
		{Kind: event.KindResult, Call: "x2", Out: string([]byte{0xff, 0xfe, 0})},
		{Kind: event.KindHeartbeat},
		{Kind: event.KindRunEnd, Status: event.StatusCompleted},
		{Kind: event.KindCall, Call: "x3", Tool: "t"},
		{Kind: event.KindTimer, Timer: "lease", Gen: 1},
		{Kind: event.KindTimer, Timer: "no-such-timer", Gen: 99},
		{Kind: event.KindRound, Calls: []string{"x4", "x5"}, Wait: 1},
		{Kind: event.KindStep, Context: 1 << 20, Window: 10, TokensIn: 1 << 40, Cost: 1 << 50, Doc: `{`, DocSchema: "nope"},
		{Kind: event.KindResult, Call: "x4", Ref: &event.OutputRef{Digest: "sha256:" + strings.Repeat("0", 64), Size: 1 << 30}},
		{Kind: event.KindRunStart, Lease: 1000, Tools: []event.Schema{{Name: "t", Schema: `{"type":`}}},
	}
	c := k.chain()
	for _, start := range [][]event.Event{nil, history} {
		r := c.NewRun()
		replay(t, c, r, start)
		for _, ev := range odd {
			ev.V, ev.Tenant, ev.Run, ev.Seq, ev.TS = event.Version, "odd", "odd", r.Seq+1, BaseTS
			if ev.Kind == event.KindTimer {
				ev.Seq = 0
			}
			func() {
				defer func() {
					if v := recover(); v != nil {
						t.Fatalf("%s panicked on %s: %v", p.Name(), &ev, v)
					}
				}()
				replay(t, c, r, []event.Event{ev})
			}()
		}
	}
}

// String renders a decision for golden logs and failure messages.
func String(d *event.Decision) string {
	s := d.Kind.String()
	if d.Guard != "" {
		s += " by " + d.Guard
	}
	if d.Call != "" {
		s += " call=" + d.Call
	}
	if d.Reason != "" {
		s += " " + string(d.Reason)
	}
	if d.Rule != "" {
		s += " rule=" + d.Rule
	}
	if d.Level != 0 {
		s += fmt.Sprintf(" level=%d", d.Level)
	}
	if d.Outcome != "" {
		s += " outcome=" + string(d.Outcome)
	}
	if d.Steer != nil {
		s += " steer=" + string(d.Steer.Kind)
		if d.Steer.Tool != "" {
			s += " tool=" + d.Steer.Tool
		}
		if d.Steer.Sig != "" {
			s += " sig=" + d.Steer.Sig
		}
	}
	for _, c := range d.Counts {
		s += fmt.Sprintf(" %s=%d", c.Name, c.Value)
	}
	if d.Msg != "" {
		s += fmt.Sprintf(" %q", d.Msg)
	}
	return s
}
