package round_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/round"
)

func history() *processortest.History { return processortest.NewHistory("acme", "r") }

// announce appends a round of calls with the given wait.
func announce(h *processortest.History, wait int64, calls ...string) *processortest.History {
	return h.Add(event.Event{Kind: event.KindRound, Calls: calls, Wait: wait})
}

// results appends a successful result for each call, in the order given.
func results(h *processortest.History, calls ...string) *processortest.History {
	for _, c := range calls {
		h.ResultOf(c, false, "out "+c)
	}
	return h
}

// render applies h and renders each event's decisions and timers, one
// string per event: "settled[c1 c2|missing c3|wait]", "timer(round-2,500,2)",
// "cancel(round-2)".
func render(t *testing.T, p round.Policy, h *processortest.History) []string {
	t.Helper()
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	c := processors.NewChain(round.New(p))
	r := c.NewRun()
	var out processors.Out
	var got []string
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
		var parts []string
		for _, d := range out.Decisions {
			if d.Kind != event.Settled {
				parts = append(parts, d.Kind.String())
				continue
			}
			if d.Call != "" || d.Guard != round.Name {
				t.Errorf("settled decision with call %q, guard %q", d.Call, d.Guard)
			}
			parts = append(parts, fmt.Sprintf("settled[%s|missing %s|%s]", strings.Join(d.Calls, " "), strings.Join(d.Missing, " "), d.Rule))
		}
		for _, tm := range out.Timers {
			if tm.After < 0 {
				parts = append(parts, fmt.Sprintf("cancel(%s)", tm.Name))
			} else {
				parts = append(parts, fmt.Sprintf("timer(%s,%d,%d)", tm.Name, tm.After, tm.Gen))
			}
		}
		got = append(got, strings.Join(parts, " "))
	}
	return got
}

func TestBarrier(t *testing.T) {
	tests := []struct {
		name    string
		policy  func(*round.Policy)
		history *processortest.History
		want    []string // per event, after the run start
	}{
		{
			name:    "results in order 3, 1, 4, 2 settle once, ordered by call id",
			history: results(announce(history(), 0, "c1", "c2", "c3", "c4"), "c3", "c1", "c4", "c2"),
			want:    []string{"", "", "", "", "settled[c1 c2 c3 c4|missing |]"},
		},
		{
			name:    "c2 comes before c10",
			history: results(announce(history(), 0, "c10", "c2", "c1"), "c10", "c2", "c1"),
			want:    []string{"", "", "", "settled[c1 c2 c10|missing |]"},
		},
		{
			name:    "a second result for a settled round changes nothing",
			history: results(announce(history(), 0, "c1", "c2"), "c2", "c1", "c1", "c2"),
			want:    []string{"", "", "settled[c1 c2|missing |]", "", ""},
		},
		{
			name:    "a duplicate result does not complete a round",
			history: results(announce(history(), 0, "c1", "c2"), "c1", "c1", "c2"),
			want:    []string{"", "", "", "settled[c1 c2|missing |]"},
		},
		{
			name:    "the wait runs out: settled with the missing calls",
			history: results(announce(history(), 5000, "c3", "c1", "c2"), "c2").Timer("round-2", 2),
			want:    []string{"timer(round-2,5000,2)", "", "settled[c1 c2 c3|missing c1 c3|wait]"},
		},
		{
			name:    "a round that settles first cancels its timer, which then changes nothing",
			history: results(announce(history(), 5000, "c1", "c2"), "c1", "c2").Timer("round-2", 2).Timer("round-2", 2),
			want:    []string{"timer(round-2,5000,2)", "", "settled[c1 c2|missing |] cancel(round-2)", "", ""},
		},
		{
			name:    "a timer of another generation or name changes nothing",
			history: results(announce(history(), 5000, "c1", "c2"), "c1").Timer("round-2", 3).Timer("round-3", 2).Timer("lease", 2),
			want:    []string{"timer(round-2,5000,2)", "", "", "", ""},
		},
		{
			name:    "a result before its round is not counted",
			history: results(announce(results(history(), "c1"), 1000, "c1", "c2"), "c2").Timer("round-3", 3),
			want:    []string{"", "timer(round-3,1000,3)", "", "settled[c1 c2|missing c1|wait]"},
		},
		{
			name:    "a result for a call in no open round changes nothing",
			history: results(announce(history(), 0, "c1", "c2"), "c7", "c1"),
			want:    []string{"", "", ""},
		},
		{
			name:    "a call in two open rounds counts in each",
			history: results(announce(announce(history(), 0, "c1", "c2"), 0, "c2", "c3"), "c2", "c3", "c1"),
			want:    []string{"", "", "", "settled[c2 c3|missing |]", "settled[c1 c2|missing |]"},
		},
		{
			name:    "one result can settle several rounds, oldest first",
			history: results(announce(announce(history(), 0, "c1", "c2"), 0, "c2"), "c1", "c2"),
			want:    []string{"", "", "", "settled[c1 c2|missing |] settled[c2|missing |]"},
		},
		{
			name:    "a call listed twice counts once",
			history: results(announce(history(), 0, "c1", "c1", "c2"), "c1", "c2"),
			want:    []string{"", "", "settled[c1 c2|missing |]"},
		},
		{
			name:   "a round beyond max_open settles the oldest early",
			policy: func(p *round.Policy) { p.MaxOpen = 2 },
			history: results(announce(announce(announce(results(announce(history(), 1000, "a1", "a2"), "a2"),
				0, "b1"), 0, "c1"), 0, "d1"), "b1", "c1", "d1").Timer("round-2", 2),
			want: []string{
				"timer(round-2,1000,2)", "", "",
				"settled[a1 a2|missing a1|max_open] cancel(round-2)",
				"settled[b1|missing b1|max_open]",
				"", "settled[c1|missing |]", "settled[d1|missing |]", "",
			},
		},
		{
			name:    "an empty round is ignored",
			history: results(announce(history(), 1000), "c1"),
			want:    []string{"", ""},
		},
		{
			name:    "the round is released after a run end only as stale",
			history: results(announce(history(), 0, "c1", "c2"), "c1").End(event.StatusCompleted).ResultOf("c2", false, ""),
			want:    []string{"", "", "", "stale"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := round.DefaultPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			got := render(t, p, tt.history)[1:] // the run start decides nothing
			if !slices.Equal(got, tt.want) {
				for i, ev := range tt.history.Events()[1:] {
					w, g := "", ""
					if i < len(tt.want) {
						w = tt.want[i]
					}
					if i < len(got) {
						g = got[i]
					}
					mark := " "
					if w != g {
						mark = "✗"
					}
					t.Logf("%s %-40s got %q want %q", mark, fmt.Sprintf("%s %s %s#%d", ev.Kind, ev.Call, ev.Timer, ev.Gen), g, w)
				}
				t.Fail()
			}
		})
	}
}

func TestSettledWhateverTheOrder(t *testing.T) {
	calls := []string{"c1", "c2", "c3", "c9", "c10", "c11", "c100", "x", "x2"}
	r := rand.New(rand.NewPCG(7, 7))
	for range 50 {
		order := slices.Clone(calls)
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		announced := slices.Clone(calls)
		r.Shuffle(len(announced), func(i, j int) { announced[i], announced[j] = announced[j], announced[i] })
		got := render(t, round.DefaultPolicy(), results(announce(history(), 0, announced...), order...))
		if want := "settled[" + strings.Join(calls, " ") + "|missing |]"; got[len(got)-1] != want || slices.ContainsFunc(got[:len(got)-1], func(s string) bool { return s != "" }) {
			t.Fatalf("announced %v, results in order %v: %q", announced, order, got)
		}
	}
}

func TestCompareIDs(t *testing.T) {
	sorted := []string{"", "0", "00", "01", "1", "2", "9", "010", "10", "99", "100", "a", "a1", "a2", "a10", "a10b", "a10c", "a11", "ab", "c", "c1", "c02", "c2", "c2x", "c10", "c100", "call-1-2", "call-1-10", "call-2-1", "é"}
	for i, a := range sorted {
		for j, b := range sorted {
			want := 0
			switch {
			case i < j:
				want = -1
			case i > j:
				want = 1
			}
			if got := round.CompareIDs(a, b); got != want {
				t.Errorf("CompareIDs(%q, %q) = %d, want %d", a, b, got, want)
			}
		}
	}
	// A total order over random ids: antisymmetric, transitive, 0 only for
	// equal ids.
	r := rand.New(rand.NewPCG(1, 2))
	ids := make([]string, 300)
	for i := range ids {
		var b strings.Builder
		for range 1 + r.IntN(6) {
			b.WriteByte("ab0123456789-"[r.IntN(13)])
		}
		ids[i] = b.String()
	}
	slices.SortFunc(ids, round.CompareIDs)
	for i := range ids {
		for j := i; j < len(ids); j++ {
			c, rc := round.CompareIDs(ids[i], ids[j]), round.CompareIDs(ids[j], ids[i])
			if c != -rc || c > 0 || (c == 0) != (ids[i] == ids[j]) {
				t.Fatalf("%q vs %q: %d, %d", ids[i], ids[j], c, rc)
			}
		}
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := round.DefaultPolicy().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, -1, round.MaxOpenLimit + 1} {
		if err := (round.Policy{MaxOpen: n}).Validate(); err == nil {
			t.Errorf("max_open %d accepted", n)
		}
	}
}

func TestStateIsBounded(t *testing.T) {
	c := processors.NewChain(round.New(round.DefaultPolicy()))
	r := c.NewRun()
	var out processors.Out
	h := history()
	for i := range 100 {
		announce(h, 1000, fmt.Sprintf("c%d", i))
	}
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	if n := len(r.Parts[0].(*round.State).Open); n != round.DefaultPolicy().MaxOpen {
		t.Errorf("%d rounds open, want %d", n, round.DefaultPolicy().MaxOpen)
	}
}

// histories are the scenarios of the golden logs and the conformance kit.
func histories() map[string]*processortest.History {
	hs := map[string]*processortest.History{}
	h := processortest.NewHistory("acme", "settle")
	h.Call("read_file", `{"path":"a"}`).Call("read_file", `{"path":"b"}`).Call("grep", `{"q":"x"}`).Call("ls", `{}`)
	announce(h, 30000, "c1", "c2", "c3", "c4")
	first := h.Seq()
	results(h, "c3", "c1", "c4", "c2").Timer(round.TimerName(first), first).Step()
	h.Call("build", `{}`).Call("test", `{}`)
	announce(h, 5000, "c10", "c5", "c6")
	second := h.Seq()
	results(h, "c10", "c6").Timer(round.TimerName(second), second).ResultOf("c5", false, "late")
	hs["settle"] = h.End(event.StatusCompleted)

	h = processortest.NewHistory("acme", "max-open")
	for i := 1; i <= 10; i++ {
		announce(h, int64(1000*i), fmt.Sprintf("c%d", i), fmt.Sprintf("c%d", i+100))
	}
	for i := 1; i <= 10; i++ {
		results(h, fmt.Sprintf("c%d", i+100), fmt.Sprintf("c%d", i))
	}
	hs["max-open"] = h.Timer("round-2", 2).Timer("round-11", 11)
	return hs
}

func TestGolden(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Golden(t, processors.NewChain(round.New(round.DefaultPolicy())), h.Events(), name)
		})
	}
}

func TestConformance(t *testing.T) {
	for name, h := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, round.New(round.DefaultPolicy()), h.Events())
		})
	}
}
