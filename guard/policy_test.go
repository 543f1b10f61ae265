package guard_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"

	"github.com/guardstream/guardstream/guard"
)

func TestParse(t *testing.T) {
	p, err := guard.Parse([]byte(`{"loop":{"repeat_limit":7,"exempt":["poll"]}}`))
	if err != nil {
		t.Fatal(err)
	}
	if p.Loop.RepeatLimit != 7 || p.Loop.RepeatAdvise != 3 || len(p.Loop.Exempt) != 1 {
		t.Errorf("got %+v; want repeat_limit 7 over the defaults", p.Loop)
	}
	y, err := guard.Parse([]byte("loop:\n  action: inject_steer\nlease:\n  default_ttl_ms: 30000\n"))
	if err != nil || y.Loop.Action != "inject_steer" || y.Lease.DefaultTTL != 30000 || y.Loop.RepeatLimit != 5 {
		t.Errorf("YAML policy: %+v, %v", y, err)
	}
	for doc, says := range map[string]string{
		`{"loop":{"repeat_limt":7}}`:     `unknown field "repeat_limt"`,
		`{"loop":{"repeat_advise":9}}`:   "must be below",
		`{"loop":{"action":"explode"}}`:  `loop.action is "explode"`,
		`{"loop":`:                       "parsing policy",
		`{"lease":{"default_ttl_ms":5}}`: "lease.default_ttl_ms",
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
	if p.Budget.MaxInFlight != 4 || p.Policy.Default != "code" || p.Loop.RepeatLimit != 5 {
		t.Errorf("the example did not override what it names over the defaults: %+v", p.Budget)
	}
}
