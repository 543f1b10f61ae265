package budget_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/processors/budget"
)

func TestPolicyValidate(t *testing.T) {
	if err := budget.DefaultPolicy().Validate(); err != nil {
		t.Fatalf("default policy: %v", err)
	}
	if err := (budget.Policy{}).Validate(); err != nil {
		t.Fatalf("a policy with every limit off: %v", err)
	}
	bad := []struct {
		name string
		mod  func(*budget.Policy)
		want string // in the error
	}{
		{"negative max_turns", func(p *budget.Policy) { p.MaxTurns.Max = -1 }, "budget.max_turns.max is -1"},
		{"negative max_tool_rounds_per_turn", func(p *budget.Policy) { p.MaxToolRoundsPerTurn.Max = -2 }, "budget.max_tool_rounds_per_turn.max is -2"},
		{"negative max_steps", func(p *budget.Policy) { p.MaxSteps.Max = -1 }, "budget.max_steps.max"},
		{"negative max_tool_calls_per_step", func(p *budget.Policy) { p.MaxToolCallsPerStep.Max = -1 }, "budget.max_tool_calls_per_step.max"},
		{"negative max_tokens", func(p *budget.Policy) { p.MaxTokens.Max = -1 }, "budget.max_tokens.max"},
		{"negative max_cost", func(p *budget.Policy) { p.MaxCost = budget.Limit{Max: -1, Soft: true} }, "budget.max_cost.max"},
		{"negative max_in_flight", func(p *budget.Policy) { p.MaxInFlight = -1 }, "budget.max_in_flight is -1; want 0 to 1024"},
		{"max_in_flight too big", func(p *budget.Policy) { p.MaxInFlight = budget.MaxQueue + 1 }, "budget.max_in_flight is 1025"},
		{"max_deferred too big", func(p *budget.Policy) { p.MaxDeferred = budget.MaxQueue + 1 }, "budget.max_deferred is 1025"},
	}
	for _, tt := range bad {
		err := policy(tt.mod).Validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: Validate returned %v, want an error containing %q", tt.name, err, tt.want)
		}
	}

	// Every problem is reported, in a stable order.
	p := policy(func(p *budget.Policy) {
		p.MaxTurns.Max, p.MaxInFlight, p.MaxDeferred = -1, -1, -1
	})
	want := "budget.max_turns.max is -1; want 0 (off) or more\n" +
		"budget.max_in_flight is -1; want 0 to 1024\n" +
		"budget.max_deferred is -1; want 0 to 1024"
	if err := p.Validate(); err == nil || err.Error() != want {
		t.Errorf("Validate returned\n%v\nwant\n%s", err, want)
	}
}

// TestPolicyJSON checks the policy's JSON form, decoded over the defaults
// the way guard-consumer reads its policy file.
func TestPolicyJSON(t *testing.T) {
	p := budget.DefaultPolicy()
	doc := `{"max_turns": {"max": 4, "soft": true}, "max_steps": {"max": 0}, "max_cost": {"max": 5000000},
		"max_in_flight": 2}`
	if err := json.Unmarshal([]byte(doc), &p); err != nil {
		t.Fatal(err)
	}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprintf("%+v", p)
	want := "{MaxTurns:{Max:4 Soft:true} MaxToolRoundsPerTurn:{Max:200 Soft:false} MaxSteps:{Max:0 Soft:false} " +
		"MaxToolCallsPerStep:{Max:32 Soft:false} MaxTokens:{Max:0 Soft:false} MaxCost:{Max:5000000 Soft:false} " +
		"MaxInFlight:2 MaxDeferred:64}"
	if got != want {
		t.Errorf("decoded\n%s\nwant\n%s", got, want)
	}
	b, err := json.Marshal(budget.DefaultPolicy())
	if err != nil {
		t.Fatal(err)
	}
	const defaults = `{"max_turns":{"max":32},"max_tool_rounds_per_turn":{"max":200},"max_steps":{"max":250},` +
		`"max_tool_calls_per_step":{"max":32},"max_tokens":{"max":0},"max_cost":{"max":0},"max_in_flight":8,` +
		`"max_deferred":64}`
	if string(b) != defaults {
		t.Errorf("defaults encode as\n%s\nwant\n%s", b, defaults)
	}
}
