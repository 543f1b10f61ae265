package budget_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/budget"
	"github.com/guardstream/guardstream/processors/processortest"
)

// summary renders decisions compactly, counters included:
// "stop:LIMIT_EXCEEDED/max_turns turns=3 max=2", "advise:soft_limit/max_steps
// steps=4 max=3", "defer/max_in_flight in_flight=2 max=2 queued=1", and a
// release as "allow/max_in_flight(c3)".
func summary(ds []event.Decision) string {
	parts := make([]string, 0, len(ds))
	for _, d := range ds {
		s := processortest.Brief(&d)
		if d.Rule != "" {
			s += "/" + d.Rule
		}
		if d.Kind == event.Allow && d.Guard == budget.Name {
			s += "(" + d.Call + ")"
		}
		for _, c := range d.Counts {
			s += fmt.Sprintf(" %s=%d", c.Name, c.Value)
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

// decide applies the history to a fresh run and returns each event's
// decision summary, keyed by sequence, leaving out events that drew none,
// and the guard's state at the end.
func decide(p budget.Policy, h *processortest.History) (map[int64]string, *budget.State) {
	got, r := processortest.BySeq(processors.NewChain(budget.New(p)), h.Events(), summary)
	return got, r.Parts[0].(*budget.State)
}

// step appends a step of turn.
func step(h *processortest.History, turn int64) *processortest.History {
	return h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: turn})
}

// spend appends a step of turn 1 that used tokens in and out and cost.
func spend(h *processortest.History, tin, tout, cost int64) *processortest.History {
	return h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: 1, TokensIn: tin, TokensOut: tout, Cost: cost})
}

// calls appends n calls of tool, each followed by its result.
func calls(h *processortest.History, n int, tool string) *processortest.History {
	for range n {
		h.Call(tool, `{}`).Result(false, "ok")
	}
	return h
}

// parallel appends n calls of tool in one round, their results to come.
func parallel(h *processortest.History, n int, tool string) *processortest.History {
	for range n {
		h.Call(tool, `{}`)
	}
	return h
}

// results appends the results of the given calls, in the order given.
func results(h *processortest.History, ids ...string) *processortest.History {
	for _, id := range ids {
		h.ResultOf(id, false, "ok")
	}
	return h
}

// off is a policy with every limit off.
func off(mod func(*budget.Policy)) func(*budget.Policy) {
	return func(p *budget.Policy) {
		*p = budget.Policy{}
		mod(p)
	}
}

func policy(mod func(*budget.Policy)) budget.Policy {
	p := budget.DefaultPolicy()
	if mod != nil {
		mod(&p)
	}
	return p
}

func TestLimiter(t *testing.T) {
	const allow = "allow"
	tests := []struct {
		name    string
		policy  func(*budget.Policy)
		history func(h *processortest.History)
		want    map[int64]string // by event sequence; events not listed draw nothing
	}{
		// Turns.
		{
			name:   "max_turns: the step that opens turn max+1 stops the run",
			policy: off(func(p *budget.Policy) { p.MaxTurns.Max = 2 }),
			history: func(h *processortest.History) {
				step(h, 1)
				step(h, 1)
				step(h, 2)
				step(h, 3)
				step(h, 4)
			},
			want: map[int64]string{5: "stop:LIMIT_EXCEEDED/max_turns turns=3 max=2", 6: "stale"},
		},
		{
			name:   "max_turns: only a turn greater than any seen opens one; a run without turns is one turn",
			policy: off(func(p *budget.Policy) { p.MaxTurns.Max = 2 }),
			history: func(h *processortest.History) {
				step(h, 0)
				step(h, 0)
				step(h, 5)
				step(h, 3)
				step(h, 5)
				step(h, 4)
				step(h, 9)
				step(h, 10)
			},
			want: map[int64]string{9: "stop:LIMIT_EXCEEDED/max_turns turns=3 max=2"},
		},
		{
			name:   "max_turns soft: advised once, when turn max+1 opens",
			policy: off(func(p *budget.Policy) { p.MaxTurns = budget.Limit{Max: 2, Soft: true} }),
			history: func(h *processortest.History) {
				for turn := range int64(5) {
					step(h, turn+1)
				}
			},
			want: map[int64]string{4: "advise:soft_limit/max_turns turns=3 max=2"},
		},

		// Tool rounds per turn.
		{
			name:   "max_tool_rounds_per_turn: the call that opens round max+1 of a turn is stopped",
			policy: off(func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = 2 }),
			history: func(h *processortest.History) {
				step(h, 1)
				calls(h, 2, "grep") // one round: calls up to the next step
				step(h, 1)
				calls(h, 1, "grep")
				step(h, 1)
				calls(h, 1, "grep")
			},
			want: map[int64]string{
				3: allow, 5: allow, 8: allow,
				11: "stop:LIMIT_EXCEEDED/max_tool_rounds_per_turn rounds=3 max=2", 12: "stale",
			},
		},
		{
			name:   "max_tool_rounds_per_turn: a new turn resets the rounds",
			policy: off(func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = 2 }),
			history: func(h *processortest.History) {
				for turn := range int64(3) {
					step(h, turn+1)
					calls(h, 1, "grep")
					step(h, turn+1)
					calls(h, 1, "grep")
				}
			},
			want: map[int64]string{3: allow, 6: allow, 9: allow, 12: allow, 15: allow, 18: allow},
		},
		{
			name:   "max_tool_rounds_per_turn: calls before the first step open a round of the first reported turn",
			policy: off(func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = 1 }),
			history: func(h *processortest.History) {
				step(h, 1)
				calls(h, 2, "grep")
				step(h, 1)
				calls(h, 1, "grep")
			},
			want: map[int64]string{3: allow, 5: allow, 8: "stop:LIMIT_EXCEEDED/max_tool_rounds_per_turn rounds=2 max=1", 9: "stale"},
		},
		{
			name:   "max_tool_rounds_per_turn: a run that never reports turns is not limited per turn",
			policy: off(func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = 1 }),
			history: func(h *processortest.History) {
				calls(h, 2, "grep")
				step(h, 0)
				calls(h, 1, "grep")
				step(h, 0)
				calls(h, 1, "grep")
			},
			want: map[int64]string{2: allow, 4: allow, 7: allow, 10: allow},
		},
		{
			name:   "max_tool_rounds_per_turn soft: advised once per turn",
			policy: off(func(p *budget.Policy) { p.MaxToolRoundsPerTurn = budget.Limit{Max: 1, Soft: true} }),
			history: func(h *processortest.History) {
				step(h, 1)
				calls(h, 1, "grep")
				step(h, 1)
				calls(h, 2, "grep")
				step(h, 1)
				calls(h, 1, "grep")
				step(h, 2)
				calls(h, 1, "grep")
				step(h, 2)
				calls(h, 1, "grep")
			},
			want: map[int64]string{
				3: allow, 6: "advise:soft_limit/max_tool_rounds_per_turn rounds=2 max=1, allow", 8: allow, 11: allow,
				14: allow, 17: "advise:soft_limit/max_tool_rounds_per_turn rounds=2 max=1, allow",
			},
		},

		// Steps.
		{
			name:    "max_steps: step max+1 stops the run",
			policy:  off(func(p *budget.Policy) { p.MaxSteps.Max = 3 }),
			history: func(h *processortest.History) { step(h, 1).Step().Step().Step() },
			want:    map[int64]string{5: "stop:LIMIT_EXCEEDED/max_steps steps=4 max=3"},
		},
		{
			name:    "max_steps soft: advised once, on step max+1",
			policy:  off(func(p *budget.Policy) { p.MaxSteps = budget.Limit{Max: 3, Soft: true} }),
			history: func(h *processortest.History) { step(h, 1).Step().Step().Step().Step().Step() },
			want:    map[int64]string{5: "advise:soft_limit/max_steps steps=4 max=3"},
		},

		// Tool calls per step.
		{
			name:   "max_tool_calls_per_step: call max+1 of a step is stopped; a step resets the count",
			policy: off(func(p *budget.Policy) { p.MaxToolCallsPerStep.Max = 2 }),
			history: func(h *processortest.History) {
				step(h, 1)
				calls(h, 2, "grep")
				step(h, 1)
				parallel(h, 3, "grep")
			},
			want: map[int64]string{
				3: allow, 5: allow, 8: allow, 9: allow,
				10: "stop:LIMIT_EXCEEDED/max_tool_calls_per_step calls=3 max=2",
			},
		},
		{
			name:   "max_tool_calls_per_step soft: advised once per step",
			policy: off(func(p *budget.Policy) { p.MaxToolCallsPerStep = budget.Limit{Max: 1, Soft: true} }),
			history: func(h *processortest.History) {
				step(h, 1)
				parallel(h, 3, "grep")
				step(h, 1)
				parallel(h, 2, "grep")
			},
			want: map[int64]string{
				3: allow, 4: "advise:soft_limit/max_tool_calls_per_step calls=2 max=1, allow", 5: allow,
				7: allow, 8: "advise:soft_limit/max_tool_calls_per_step calls=2 max=1, allow",
			},
		},

		// Calls in flight.
		{
			name:   "max_in_flight: calls beyond it are deferred, and results release them one by one, in order",
			policy: func(p *budget.Policy) { p.MaxInFlight = 2 },
			history: func(h *processortest.History) {
				step(h, 1)
				parallel(h, 5, "grep")
				results(h, "c1", "c2", "c3", "c4", "c5")
			},
			want: map[int64]string{
				3: allow, 4: allow,
				5: "defer/max_in_flight in_flight=2 max=2 queued=1",
				6: "defer/max_in_flight in_flight=2 max=2 queued=2",
				7: "defer/max_in_flight in_flight=2 max=2 queued=3",
				8: "allow/max_in_flight(c3)", 9: "allow/max_in_flight(c4)", 10: "allow/max_in_flight(c5)",
			},
		},
		{
			name:   "max_in_flight: a result releases the oldest deferred call, whichever call it lands; a deferred call's result changes nothing",
			policy: func(p *budget.Policy) { p.MaxInFlight = 2 },
			history: func(h *processortest.History) {
				parallel(h, 4, "grep")
				results(h, "c2", "c4", "c3", "c1")
				parallel(h, 1, "grep")
			},
			want: map[int64]string{
				2: allow, 3: allow,
				4: "defer/max_in_flight in_flight=2 max=2 queued=1",
				5: "defer/max_in_flight in_flight=2 max=2 queued=2",
				6: "allow/max_in_flight(c3)", 8: "allow/max_in_flight(c4)",
				10: allow,
			},
		},
		{
			name:   "max_in_flight: an abandoned call lands like a result, and a deferred one leaves the queue and is never released",
			policy: func(p *budget.Policy) { p.MaxInFlight = 1 },
			history: func(h *processortest.History) {
				parallel(h, 3, "grep")
				h.Add(event.Event{Kind: event.KindResult, Call: "c2", Abandoned: true})
				h.Add(event.Event{Kind: event.KindResult, Call: "c1", Abandoned: true})
				results(h, "c3")
				parallel(h, 1, "grep")
			},
			want: map[int64]string{
				2: allow,
				3: "defer/max_in_flight in_flight=1 max=1 queued=1",
				4: "defer/max_in_flight in_flight=1 max=1 queued=2",
				6: "allow/max_in_flight(c3)",
				8: allow,
			},
		},
		{
			name:   "max_in_flight: a result for a call not in flight changes nothing",
			policy: func(p *budget.Policy) { p.MaxInFlight = 1 },
			history: func(h *processortest.History) {
				parallel(h, 3, "grep")
				results(h, "c2", "nope", "c1", "c1", "c3", "c2")
			},
			want: map[int64]string{
				2: allow,
				3: "defer/max_in_flight in_flight=1 max=1 queued=1",
				4: "defer/max_in_flight in_flight=1 max=1 queued=2",
				7: "allow/max_in_flight(c2)", 10: "allow/max_in_flight(c3)",
			},
		},
		{
			name:   "max_deferred: a call that would make the queue longer is rejected",
			policy: func(p *budget.Policy) { p.MaxInFlight, p.MaxDeferred = 1, 2 },
			history: func(h *processortest.History) {
				parallel(h, 4, "grep")
				results(h, "c1")
				parallel(h, 2, "grep")
			},
			want: map[int64]string{
				2: allow,
				3: "defer/max_in_flight in_flight=1 max=1 queued=1",
				4: "defer/max_in_flight in_flight=1 max=1 queued=2",
				5: "reject:LIMIT_EXCEEDED/max_deferred queued=3 max=2",
				6: "allow/max_in_flight(c2)",
				7: "defer/max_in_flight in_flight=1 max=1 queued=2",
				8: "reject:LIMIT_EXCEEDED/max_deferred queued=3 max=2",
			},
		},
		{
			name:    "max_deferred 0: a call beyond max_in_flight is rejected at once",
			policy:  func(p *budget.Policy) { p.MaxInFlight, p.MaxDeferred = 1, 0 },
			history: func(h *processortest.History) { parallel(h, 2, "grep") },
			want:    map[int64]string{2: allow, 3: "reject:LIMIT_EXCEEDED/max_deferred queued=1 max=0"},
		},
		{
			name:   "a released call is not counted twice",
			policy: off(func(p *budget.Policy) { p.MaxInFlight, p.MaxDeferred, p.MaxToolCallsPerStep.Max = 2, 8, 5 }),
			history: func(h *processortest.History) {
				step(h, 1)
				parallel(h, 5, "grep")
				results(h, "c1", "c2", "c3", "c4", "c5")
				parallel(h, 1, "grep")
			},
			want: map[int64]string{
				3: allow, 4: allow,
				5: "defer/max_in_flight in_flight=2 max=2 queued=1",
				6: "defer/max_in_flight in_flight=2 max=2 queued=2",
				7: "defer/max_in_flight in_flight=2 max=2 queued=3",
				8: "allow/max_in_flight(c3)", 9: "allow/max_in_flight(c4)", 10: "allow/max_in_flight(c5)",
				13: "stop:LIMIT_EXCEEDED/max_tool_calls_per_step calls=6 max=5",
			},
		},

		// Refused calls count toward nothing.
		{
			name: "a call the budget rejects counts toward no limit",
			policy: off(func(p *budget.Policy) {
				p.MaxInFlight, p.MaxDeferred = 1, 0
				p.MaxToolCallsPerStep.Max = 2
			}),
			history: func(h *processortest.History) {
				step(h, 1)
				parallel(h, 4, "read_file")
				results(h, "c1")
				parallel(h, 2, "grep")
			},
			want: map[int64]string{
				3: allow,
				4: "reject:LIMIT_EXCEEDED/max_deferred queued=1 max=0", 5: "reject:LIMIT_EXCEEDED/max_deferred queued=1 max=0",
				6: "reject:LIMIT_EXCEEDED/max_deferred queued=1 max=0",
				8: allow, 9: "stop:LIMIT_EXCEEDED/max_tool_calls_per_step calls=3 max=2",
			},
		},
		{
			name: "a call the budget rejects does not open a tool round",
			policy: off(func(p *budget.Policy) {
				p.MaxInFlight, p.MaxDeferred = 1, 0
				p.MaxToolRoundsPerTurn.Max = 2
			}),
			history: func(h *processortest.History) {
				step(h, 1)
				parallel(h, 1, "read_file") // round 1, in flight
				step(h, 1)
				parallel(h, 1, "grep") // rejected: opens no round
				results(h, "c1")
				step(h, 1)
				calls(h, 1, "grep") // round 2
				step(h, 1)
				calls(h, 1, "grep") // round 3
			},
			want: map[int64]string{
				3: allow, 5: "reject:LIMIT_EXCEEDED/max_deferred queued=1 max=0",
				8: allow, 11: "stop:LIMIT_EXCEEDED/max_tool_rounds_per_turn rounds=3 max=2", 12: "stale",
			},
		},
		{
			name: "the limits are checked in order: rounds, calls per step, in flight",
			policy: func(p *budget.Policy) {
				p.MaxToolCallsPerStep.Max, p.MaxInFlight = 2, 1
			},
			history: func(h *processortest.History) {
				parallel(h, 1, "read_file")
				parallel(h, 1, "grep")      // deferred: second call of the step
				parallel(h, 1, "read_file") // calls per step before in flight
			},
			want: map[int64]string{
				2: allow,
				3: "defer/max_in_flight in_flight=1 max=1 queued=1",
				4: "stop:LIMIT_EXCEEDED/max_tool_calls_per_step calls=3 max=2",
			},
		},

		// Tokens and cost.
		{
			name:    "max_tokens: the step whose tokens cross the limit stops the run",
			policy:  off(func(p *budget.Policy) { p.MaxTokens.Max = 1000 }),
			history: func(h *processortest.History) { spend(h, 400, 100, 0); spend(h, 400, 100, 0); spend(h, 1, 0, 0) },
			want:    map[int64]string{4: "stop:LIMIT_EXCEEDED/max_tokens tokens=1001 max=1000"},
		},
		{
			name:    "max_tokens soft: advised once, on the step that crosses",
			policy:  off(func(p *budget.Policy) { p.MaxTokens = budget.Limit{Max: 1000, Soft: true} }),
			history: func(h *processortest.History) { spend(h, 900, 0, 0); spend(h, 50, 100, 0); spend(h, 500, 500, 0) },
			want:    map[int64]string{3: "advise:soft_limit/max_tokens tokens=1050 max=1000"},
		},
		{
			name:    "max_cost: the step whose cost crosses the limit stops the run",
			policy:  off(func(p *budget.Policy) { p.MaxCost.Max = 2_000_000 }),
			history: func(h *processortest.History) { spend(h, 0, 0, 1_500_000); spend(h, 0, 0, 500_000); spend(h, 0, 0, 1) },
			want:    map[int64]string{4: "stop:LIMIT_EXCEEDED/max_cost cost=2000001 max=2000000"},
		},
		{
			name:    "max_cost soft: advised once, on the step that crosses",
			policy:  off(func(p *budget.Policy) { p.MaxCost = budget.Limit{Max: 100, Soft: true} }),
			history: func(h *processortest.History) { spend(h, 0, 0, 150); spend(h, 0, 0, 150) },
			want:    map[int64]string{2: "advise:soft_limit/max_cost cost=150 max=100"},
		},
		{
			name: "one step past several soft limits is advised for each, in order",
			policy: off(func(p *budget.Policy) {
				p.MaxSteps = budget.Limit{Max: 1, Soft: true}
				p.MaxTokens = budget.Limit{Max: 10, Soft: true}
				p.MaxCost = budget.Limit{Max: 10, Soft: true}
			}),
			history: func(h *processortest.History) { spend(h, 5, 0, 5); spend(h, 5, 1, 6) },
			want: map[int64]string{
				3: "advise:soft_limit/max_steps steps=2 max=1, advise:soft_limit/max_tokens tokens=11 max=10, advise:soft_limit/max_cost cost=11 max=10",
			},
		},
		{
			name: "a hard limit stops the run even when a soft one is crossed too",
			policy: off(func(p *budget.Policy) {
				p.MaxSteps = budget.Limit{Max: 1, Soft: true}
				p.MaxTokens.Max = 10
			}),
			history: func(h *processortest.History) { spend(h, 5, 0, 0); spend(h, 6, 0, 0) },
			want:    map[int64]string{3: "stop:LIMIT_EXCEEDED/max_tokens tokens=11 max=10"},
		},

		// Off.
		{
			name:   "limits of 0 are off",
			policy: off(func(*budget.Policy) {}),
			history: func(h *processortest.History) {
				for range 40 {
					spend(h, 1<<20, 1<<20, 1<<30)
					parallel(h, 20, "spawn_agent")
				}
			},
			want: func() map[int64]string {
				w := map[int64]string{}
				for i := range 40 {
					for j := range 20 {
						w[int64(2+21*i+1+j)] = allow
					}
				}
				return w
			}(),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := policy(tt.policy)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			h := processortest.NewHistory("acme", "run-1")
			tt.history(h)
			got, _ := decide(p, h)
			for seq := int64(1); seq <= int64(len(h.Events())); seq++ {
				if got[seq] != tt.want[seq] {
					t.Errorf("event #%d (%s): got %q, want %q", seq, &h.Events()[seq-1], got[seq], tt.want[seq])
				}
			}
		})
	}
}

// TestRefusedCallsLeaveNoCount checks the state behind "a refused call
// counts toward nothing": after a stop or a reject, the counters hold only
// the calls that run or wait to run.
func TestRefusedCallsLeaveNoCount(t *testing.T) {
	p := policy(func(p *budget.Policy) {
		p.MaxInFlight, p.MaxDeferred = 1, 1
		p.MaxToolCallsPerStep.Max = 3
	})
	h := processortest.NewHistory("acme", "r")
	step(h, 1)
	parallel(h, 1, "read_file") // allowed
	parallel(h, 1, "grep")      // deferred
	parallel(h, 1, "grep")      // rejected: queue full
	parallel(h, 1, "grep")      // rejected: queue full
	_, s := decide(p, h)
	want := budget.State{
		Turn: 1, Turns: 1, Rounds: 1, InRound: true, Steps: 1, Calls: 2,
		InFlight: []string{"c1"}, Deferred: []string{"c2"},
	}
	if fmt.Sprint(*s) != fmt.Sprint(want) {
		t.Errorf("state %+v, want %+v", *s, want)
	}

	parallel(h, 1, "edit_file") // c5, rejected: queue full
	results(h, "c1")            // releases c2
	parallel(h, 1, "edit_file") // c6, deferred: the third call of the step
	parallel(h, 1, "edit_file") // c7, the fourth: stopped
	got, s := decide(p, h)
	if got[10] != "stop:LIMIT_EXCEEDED/max_tool_calls_per_step calls=4 max=3" {
		t.Errorf("event #10: %q", got[10])
	}
	if s.Calls != 3 || !slices.Equal(s.InFlight, []string{"c2"}) || !slices.Equal(s.Deferred, []string{"c6"}) {
		t.Errorf("after the stop: calls %d, in flight %q, deferred %q; want 3, [c2], [c6]", s.Calls, s.InFlight, s.Deferred)
	}
}

// TestInFlightStaysBounded checks that a flood of calls never grows the
// call ids the state keeps past the policy's limits.
func TestInFlightStaysBounded(t *testing.T) {
	p := budget.Policy{MaxInFlight: 4, MaxDeferred: 8}
	h := processortest.NewHistory("acme", "r")
	parallel(h, 1000, "grep")
	_, s := decide(p, h)
	if len(s.InFlight) != 4 || len(s.Deferred) != 8 {
		t.Errorf("%d calls in flight and %d deferred, want 4 and 8", len(s.InFlight), len(s.Deferred))
	}
}

// histories are the scenarios of the golden logs and the conformance kit,
// each with the policy it runs under.
func histories() map[string]struct {
	policy budget.Policy
	h      *processortest.History
} {
	type scenario = struct {
		policy budget.Policy
		h      *processortest.History
	}
	hs := map[string]scenario{}

	h := processortest.NewHistory("acme", "in-flight")
	step(h, 1)
	parallel(h, 5, "grep")
	results(h, "c1", "c2", "c3", "c4", "c5")
	step(h, 1)
	hs["in-flight"] = scenario{policy(func(p *budget.Policy) { p.MaxInFlight = 2 }), h}

	h = processortest.NewHistory("acme", "deferred")
	parallel(h, 4, "grep")
	results(h, "c1")
	parallel(h, 1, "grep")
	results(h, "c2", "c3", "c5") // c4 was refused: it has no result
	hs["max-deferred"] = scenario{policy(func(p *budget.Policy) { p.MaxInFlight, p.MaxDeferred = 1, 2 }), h}

	h = processortest.NewHistory("acme", "turns")
	for turn := range int64(4) {
		step(h, turn+1)
		if turn < 3 {
			calls(h, 1, "grep")
		}
	}
	hs["max-turns"] = scenario{policy(func(p *budget.Policy) { p.MaxTurns.Max = 3 }), h}

	h = processortest.NewHistory("acme", "rounds")
	for range 2 {
		step(h, 1)
		calls(h, 2, "grep")
	}
	step(h, 1)
	parallel(h, 1, "grep")
	hs["max-rounds"] = scenario{policy(func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = 2 }), h}

	h = processortest.NewHistory("acme", "calls")
	step(h, 1)
	parallel(h, 4, "grep")
	hs["max-calls-per-step"] = scenario{policy(func(p *budget.Policy) { p.MaxToolCallsPerStep.Max = 3 }), h}

	h = processortest.NewHistory("acme", "steps")
	for range 4 {
		step(h, 1)
	}
	hs["max-steps"] = scenario{policy(func(p *budget.Policy) { p.MaxSteps.Max = 3 }), h}

	h = processortest.NewHistory("acme", "tokens")
	spend(h, 60_000, 2_000, 310_000)
	spend(h, 70_000, 3_000, 365_000)
	spend(h, 80_000, 1_000, 405_000)
	hs["tokens-cost"] = scenario{policy(func(p *budget.Policy) {
		p.MaxCost = budget.Limit{Max: 500_000, Soft: true}
		p.MaxTokens.Max = 200_000
	}), h}

	h = processortest.NewHistory("acme", "soft")
	n := 0
	for turn := range int64(3) {
		h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: turn + 1, TokensIn: 1000, TokensOut: 100, Cost: 10})
		parallel(h, 3, "grep")
		results(h, fmt.Sprintf("c%d", n+1), fmt.Sprintf("c%d", n+2), fmt.Sprintf("c%d", n+3))
		step(h, turn+1)
		calls(h, 1, "edit_file")
		n += 4
	}
	h.End(event.StatusCompleted)
	hs["soft-limits"] = scenario{policy(func(p *budget.Policy) {
		p.MaxTurns = budget.Limit{Max: 2, Soft: true}
		p.MaxToolRoundsPerTurn = budget.Limit{Max: 1, Soft: true}
		p.MaxSteps = budget.Limit{Max: 4, Soft: true}
		p.MaxToolCallsPerStep = budget.Limit{Max: 2, Soft: true}
		p.MaxTokens = budget.Limit{Max: 2000, Soft: true}
		p.MaxCost = budget.Limit{Max: 25, Soft: true}
	}), h}
	return hs
}

func TestGolden(t *testing.T) {
	for name, sc := range histories() {
		t.Run(name, func(t *testing.T) {
			if err := sc.policy.Validate(); err != nil {
				t.Fatal(err)
			}
			processortest.Golden(t, processors.NewChain(budget.New(sc.policy)), sc.h.Events(), name)
		})
	}
}

func TestConformance(t *testing.T) {
	for name, sc := range histories() {
		t.Run(name, func(t *testing.T) {
			processortest.Run(t, budget.New(sc.policy), sc.h.Events())
		})
	}
}

// hotPath is a run that stays within every default limit: ten turns of
// four steps, each step a round of two calls and their results.
func hotPath() []event.Event {
	h := processortest.NewHistory("acme", "hot")
	n := 0
	for turn := range int64(10) {
		for range 4 {
			h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: turn + 1, TokensIn: 3000, TokensOut: 200, Cost: 9000})
			h.Call("read_file", `{"path":"a.go"}`).Call("grep", `{"q":"x"}`)
			results(h, fmt.Sprintf("c%d", n+1), fmt.Sprintf("c%d", n+2))
			n += 2
		}
	}
	return h.Events()
}

func TestAllowDoesNotAllocate(t *testing.T) {
	p := budget.DefaultPolicy()
	p.MaxTokens.Max, p.MaxCost.Max = 1<<40, 1<<40 // checked, never reached
	c := processors.NewChain(budget.New(p))
	r := c.NewRun()
	var out processors.Out
	evs := hotPath()
	for i := range 40 { // warm up: capacities settle
		c.Apply(r, &evs[i], &out)
	}
	i := 40
	allocs := testing.AllocsPerRun(100, func() {
		c.Apply(r, &evs[i], &out)
		if len(out.Decisions) > 1 || len(out.Decisions) == 1 && out.Decisions[0].Guard != "" {
			t.Fatalf("event %s drew %s; the hot path must stay within every limit", &evs[i], summary(out.Decisions))
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("applying a plain step, call or result allocates %v times", allocs)
	}
}
