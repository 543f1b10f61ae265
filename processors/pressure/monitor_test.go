package pressure_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/pressure"
	"github.com/guardstream/guardstream/processors/processortest"
)

// summary renders decisions compactly: "pressure@70 ctx=7000 win=10000".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		s := d.Kind.String()
		if d.Level != 0 {
			s += fmt.Sprintf("@%d", d.Level)
		}
		for _, c := range d.Counts {
			s += fmt.Sprintf(" %s=%d", c.Name, c.Value)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// use appends a step reporting ctx tokens in a window of win.
func use(h *processortest.History, ctx, win int64) *processortest.History {
	return h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: 1, Context: ctx, Window: win})
}

// at is the summary of the pressure decision for level, at ctx of a
// window of 10000 tokens.
func at(level, ctx int64) string {
	return fmt.Sprintf("pressure@%d ctx=%d win=10000", level, ctx)
}

func TestMonitor(t *testing.T) {
	const win = 10000
	tests := []struct {
		name       string
		thresholds []int64 // nil: the defaults
		history    func(h *processortest.History)
		want       map[int64]string // by event sequence; events not listed draw nothing
	}{
		{
			name: "each threshold, crossed upward one at a time",
			history: func(h *processortest.History) {
				for _, ctx := range []int64{1000, 6999, 7000, 8000, 8500, 9000, 9499, 9500, 9900, 10000} {
					use(h, ctx, win)
				}
			},
			want: map[int64]string{4: at(70, 7000), 6: at(85, 8500), 9: at(95, 9500)},
		},
		{
			name:    "one step crossing several thresholds draws one decision each, in ascending order",
			history: func(h *processortest.History) { use(h, 5000, win); use(h, 9600, win) },
			want:    map[int64]string{3: at(70, 9600) + ", " + at(85, 9600) + ", " + at(95, 9600)},
		},
		{
			name: "a threshold re-arms when usage falls below it, as after a compaction",
			history: func(h *processortest.History) {
				for _, ctx := range []int64{8600, 9000, 7500, 8500, 3000, 9700, 8499, 8500} {
					use(h, ctx, win)
				}
			},
			want: map[int64]string{
				2: at(70, 8600) + ", " + at(85, 8600),
				5: at(85, 8500),
				7: at(70, 9700) + ", " + at(85, 9700) + ", " + at(95, 9700),
				9: at(85, 8500),
			},
		},
		{
			name: "no event while usage stays flat above a threshold",
			history: func(h *processortest.History) {
				for range 5 {
					use(h, 9000, win)
				}
				use(h, 9999, win)
			},
			want: map[int64]string{2: at(70, 9000) + ", " + at(85, 9000), 7: at(95, 9999)},
		},
		{
			name: "steps without ctx or win, and other events, change nothing",
			history: func(h *processortest.History) {
				use(h, 7100, win)
				use(h, 0, win)
				use(h, 9900, 0)
				h.Step()
				h.Call("grep", `{}`).Result(false, "ok")
				use(h, 7200, win) // still above 70: the steps in between did not re-arm it
				use(h, 100, win)
				use(h, 0, 0)
				use(h, 7000, win)
			},
			want: map[int64]string{2: at(70, 7100), 11: at(70, 7000)},
		},
		{
			name:    "usage is compared in integers: 69.99% is below 70",
			history: func(h *processortest.History) { use(h, 699_999, 1_000_000); use(h, 700_000, 1_000_000) },
			want:    map[int64]string{3: "pressure@70 ctx=700000 win=1000000"},
		},
		{
			name:       "a context over its window crosses every threshold, and huge counts do not overflow",
			thresholds: []int64{50, 100},
			history: func(h *processortest.History) {
				use(h, 1<<62, 1<<62-1)
				use(h, 1<<40, 1<<62)
				use(h, 1<<62, 3)
			},
			want: map[int64]string{
				2: fmt.Sprintf("pressure@50 ctx=%d win=%d, pressure@100 ctx=%d win=%d", int64(1<<62), int64(1<<62-1), int64(1<<62), int64(1<<62-1)),
				4: fmt.Sprintf("pressure@50 ctx=%d win=3, pressure@100 ctx=%d win=3", int64(1<<62), int64(1<<62)),
			},
		},
		{
			name:       "custom thresholds",
			thresholds: []int64{1, 50, 100},
			history: func(h *processortest.History) {
				for _, ctx := range []int64{99, 100, 5000, 9999, 10000} {
					use(h, ctx, win)
				}
			},
			want: map[int64]string{3: at(1, 100), 4: at(50, 5000), 6: at(100, 10000)},
		},
		{
			name:       "no thresholds: off",
			thresholds: []int64{},
			history:    func(h *processortest.History) { use(h, 9999, win) },
			want:       map[int64]string{},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := pressure.DefaultPolicy()
			if tt.thresholds != nil {
				p.Thresholds = tt.thresholds
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			h := processortest.NewHistory("acme", "run-1")
			tt.history(h)
			c := processors.NewChain(pressure.New(p))
			r := c.NewRun()
			var out processors.Out
			for _, ev := range h.Events() {
				c.Apply(r, &ev, &out)
				got := summary(out.Decisions)
				if ev.Kind == event.KindCall {
					got = strings.TrimPrefix(got, "allow")
				}
				if want := tt.want[ev.Seq]; got != want {
					t.Errorf("event #%d (%s): got %q, want %q", ev.Seq, &ev, got, want)
				}
				for _, d := range out.Decisions {
					if d.Kind == event.Pressure && (d.Guard != pressure.Name || d.Msg == "") {
						t.Errorf("event #%d: pressure decision without guard or message: %+v", ev.Seq, d)
					}
				}
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	if err := pressure.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	bad := []struct {
		thresholds []int64
		want       string
	}{
		{[]int64{0, 50}, "pressure.thresholds[0] is 0; want a percentage from 1 to 100"},
		{[]int64{50, 101}, "pressure.thresholds[1] is 101; want a percentage from 1 to 100"},
		{[]int64{85, 70}, "pressure.thresholds[1] is 70, not above pressure.thresholds[0] (85); want them in ascending order without repeats"},
		{[]int64{70, 70}, "pressure.thresholds[1] is 70, not above pressure.thresholds[0] (70)"},
		{[]int64{-5, 200}, "pressure.thresholds[0] is -5; want a percentage from 1 to 100\npressure.thresholds[1] is 200"},
	}
	for _, tt := range bad {
		err := pressure.Policy{Thresholds: tt.thresholds}.Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("thresholds %v: Validate returned %v, want an error containing %q", tt.thresholds, err, tt.want)
		}
	}
}

func TestNewCopiesPolicy(t *testing.T) {
	p := pressure.DefaultPolicy()
	m := pressure.New(p)
	p.Thresholds[0] = 1
	c := processors.NewChain(m)
	r := c.NewRun()
	var out processors.Out
	h := use(processortest.NewHistory("acme", "r"), 500, 10000)
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	if len(out.Decisions) != 0 {
		t.Errorf("changing the policy after New changed the monitor: %s", summary(out.Decisions))
	}
}

// history is the scenario of the golden log and the conformance kit: a
// run that fills its window, compacts, and fills it again.
func history() *processortest.History {
	h := processortest.NewHistory("acme", "pressure")
	for _, ctx := range []int64{20_000, 60_000, 92_000, 110_000, 125_000, 126_000, 40_000, 90_000, 124_000} {
		use(h, ctx, 128_000)
		h.Call("read_file", `{"path":"a.go"}`).Result(false, "package a")
	}
	return h.End(event.StatusCompleted)
}

func TestGolden(t *testing.T) {
	processortest.Golden(t, processors.NewChain(pressure.New(pressure.DefaultPolicy())), history().Events(), "compaction")
}

func TestConformance(t *testing.T) {
	processortest.Run(t, pressure.New(pressure.DefaultPolicy()), history().Events())
}

func TestStepDoesNotAllocate(t *testing.T) {
	for _, tc := range []struct {
		name  string
		first int64   // the first step's ctx: it may cross, and is not measured
		ctxs  []int64 // the ctx of the steps after it, cycled
	}{
		{"below every threshold", 20_000, []int64{30_000, 55_000, 69_999, 41_000}},
		{"flat above a threshold", 90_000, []int64{86_000, 94_999, 85_000, 90_000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := processors.NewChain(pressure.New(pressure.DefaultPolicy()))
			r := c.NewRun()
			var out processors.Out
			h := use(processortest.NewHistory("acme", "alloc"), tc.first, 100_000)
			for i := range 200 {
				use(h, tc.ctxs[i%len(tc.ctxs)], 100_000)
			}
			evs := h.Events()
			for i := range 10 { // warm up
				c.Apply(r, &evs[i], &out)
			}
			i := 10
			allocs := testing.AllocsPerRun(100, func() {
				c.Apply(r, &evs[i], &out)
				if len(out.Decisions) != 0 {
					t.Fatalf("event %s drew %s", &evs[i], summary(out.Decisions))
				}
				i++
			})
			if allocs != 0 {
				t.Errorf("a step that crosses no threshold allocates %v times", allocs)
			}
		})
	}
}
