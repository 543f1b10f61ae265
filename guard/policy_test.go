package guard_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"

	"github.com/guardstream/guardstream/guard"
)

func TestParse(t *testing.T) {
	p, err := guard.Parse([]byte(`{"loop":{"rules":[{"name":"identical_call","ladder":[{"at":3,"do":"advise"},{"at":7,"do":"action"}]}],"exempt":["poll"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := p.Loop.Rules[0]; r.Name != "identical_call" || r.Ladder[1].At != 7 || len(p.Loop.Rules) != len(loop.DefaultPolicy().Rules) || len(p.Loop.Exempt) != 1 {
		t.Errorf("got %+v; want identical_call acting at 7, in place, over the default rules", p.Loop)
	}
	y, err := guard.Parse([]byte("loop:\n  action: inject_steer\nlease:\n  default_ttl_ms: 30000\n"))
	if err != nil || y.Loop.Action != "inject_steer" || y.Lease.DefaultTTL != 30000 || len(y.Loop.Rules) != len(loop.DefaultPolicy().Rules) {
		t.Errorf("YAML policy: %+v, %v", y, err)
	}
	for doc, says := range map[string]string{
		`{"loop":{"repeat_limt":7}}`: `unknown field "repeat_limt"`,
		`{"loop":{"rules":[{"name":"identical_call","ladder":[{"at":9,"do":"advise"},{"at":5,"do":"stop"}]}]}}`: "steps must rise",
		`{"loop":{"rules":[{"name":"x","ladder":[{"at":2,"do":"stop"}],"windw":"run"}]}}`:                       `unknown field "windw"`,
		`{"loop":{"action":"explode"}}`:                          `loop.action is "explode"`,
		`{"loop":`:                                               "parsing policy",
		`{"lease":{"default_ttl_ms":5}}`:                         "lease.default_ttl_ms",
		"budget:\n  fan_out: {read_file: 80}\n":                  "budget.fan_out has moved: per-tool budgets are the loop rule fan_out",
		"tenants:\n  acme:\n    budget: {fan_out_default: 10}\n": `tenants["acme"]: guard: parsing policy: budget.fan_out_default has moved`,
	} {
		if _, err := guard.Parse([]byte(doc)); err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%s) = %v; want an error saying %q", doc, err, says)
		}
	}
}

func TestChainOrder(t *testing.T) {
	var names []string
	for _, p := range guard.Chain(guard.DefaultPolicy()).Processors() {
		names = append(names, p.Name())
	}
	// Guards that refuse calls come first; the budget, which counts and
	// defers them, last.
	want := "[schema policy loop antipattern lease round output pressure budget]"
	if fmt.Sprint(names) != want {
		t.Errorf("chain %v, want %s", names, want)
	}
}

func TestToolsVocabularyIsShared(t *testing.T) {
	p, err := guard.Parse([]byte("tools:\n  write_tools: [scribble]\n  path_keys: [where]\n  patch_keys: []\npolicy:\n  protected: [secret/**]\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := processortest.NewHistory("acme", "r").Call("scribble", `{"where":"secret/key"}`)
	c := guard.Chain(p)
	r := c.NewRun()
	var out processors.Out
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
	}
	if v := out.Verdict(); v == nil || v.Kind != event.Reject || v.Rule != "protected_path" {
		t.Errorf("a write by a tool named only in tools.write_tools: %+v; want a protected_path reject", v)
	}
}

// TestREADMEPolicyExample keeps the README's example policy valid.
func TestREADMEPolicyExample(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), "```yaml\n")
	block, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("the README has no yaml block")
	}
	p, err := guard.Parse([]byte(block))
	if err != nil {
		t.Fatalf("the README's example policy: %v", err)
	}
	if p.Budget.MaxInFlight != 4 || p.Policy.Default != "code" || p.Loop.Action != "inject_steer" {
		t.Errorf("the example did not override what it names over the defaults: %+v", p.Budget)
	}
}
