package guard_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// scoped is a policy with a layer per tenant, per agent class and per
// agent class within a tenant, each changing when identical calls stop.
const scoped = `
loop:
  rules:
    - {name: identical_call, ladder: [{at: 3, do: advise}, {at: 5, do: stop}]}
tenants:
  acme:
    loop:
      rules:
        - {name: identical_call, ladder: [{at: 4, do: stop}]}
    agents:
      reviewer:
        preset: cline
  globex:
    resume: {allow: [ops]}
agents:
  coder:
    loop:
      rules:
        - {name: identical_call, ladder: [{at: 2, do: stop}]}
  scout:
    preset: openclaw
`

func TestScopesLayerTenantThenAgentClass(t *testing.T) {
	p, err := guard.Parse([]byte(scoped))
	if err != nil {
		t.Fatal(err)
	}
	c := guard.Chain(p)
	want := []string{"", "agent:coder", "agent:scout", "tenant:acme", "tenant:acme/agent:coder", "tenant:acme/agent:reviewer",
		"tenant:acme/agent:scout", "tenant:globex", "tenant:globex/agent:coder", "tenant:globex/agent:scout"}
	if got := c.Scopes(); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("scopes %q; want %q", got, want)
	}
	// The call at which the same call stops the run, and the scope each
	// run records.
	for _, tt := range []struct {
		tenant, agent, scope string
		stopAt               int
	}{
		{"initech", "", "", 5},                                // the default
		{"initech", "coder", "agent:coder", 2},                // the agent class's layer
		{"acme", "", "tenant:acme", 4},                        // the tenant's
		{"acme", "coder", "tenant:acme/agent:coder", 2},       // the agent class's over the tenant's
		{"acme", "reviewer", "tenant:acme/agent:reviewer", 5}, // cline's preset: hard escalation at 5
		{"globex", "designer", "tenant:globex", 5},            // an agent class with no layer: the tenant's
		{"initech", "scout", "agent:scout", 0},                // OpenClaw warns at 10 and never stops a plain repeat
	} {
		h := processortest.NewHistory(tt.tenant, "r")
		h.Events()[0].Agent = tt.agent
		for range 6 {
			h.Call("read_file", `{"path":"a.go"}`).Result(false, "x")
		}
		r := c.NewRun()
		var out processors.Out
		stopped := 0
		for i := range h.Events() {
			c.Apply(r, &h.Events()[i], &out)
			if s := out.Stopped(); s != nil && stopped == 0 {
				stopped = int(s.Seq / 2)
			}
		}
		if r.Scope != tt.scope || stopped != tt.stopAt {
			t.Errorf("tenant %s, agent %q: scope %q, stopped at call %d; want %q, %d", tt.tenant, tt.agent, r.Scope, stopped, tt.scope, tt.stopAt)
		}
	}
}

func TestScopedResume(t *testing.T) {
	p, err := guard.Parse([]byte(scoped))
	if err != nil {
		t.Fatal(err)
	}
	c := guard.Chain(p)
	for tenant, want := range map[string]event.DecisionKind{"globex": event.Resumed, "acme": event.Stale} {
		h := processortest.NewHistory(tenant, "r")
		for range 5 {
			h.Call("read_file", `{"path":"a.go"}`).Result(false, "x")
		}
		h.Add(event.Event{Kind: event.KindResume, By: "ops", Why: "looked at it; go on"})
		r := c.NewRun()
		var out processors.Out
		for i := range h.Events() {
			c.Apply(r, &h.Events()[i], &out)
		}
		if len(out.Decisions) != 1 || out.Decisions[0].Kind != want {
			t.Errorf("%s: the resume drew %v; want %s", tenant, out.Decisions, want)
		}
	}
}

func TestScopeErrorsNameTheScope(t *testing.T) {
	for doc, says := range map[string]string{
		"agents: {coder: {loop: {rules: [{name: identical_call, ladder: [{at: 0, do: stop}]}]}}}": `scope "agent:coder": loop.rules[identical_call].ladder[0].at is 0`,
		"tenants: {acme: {agents: {coder: {loop: {action: explode}}}}}":                           `scope "tenant:acme/agent:coder": loop.action is "explode"`,
		"tenants: {acme: {lop: {}}}":          `tenants["acme"]: json: unknown field "lop"`,
		"tenants: {acme: {tenants: {x: {}}}}": `a layer cannot hold tenants`,
		"agents: {coder: {agents: {x: {}}}}":  `an agent class's layer cannot hold agents`,
		"agents: {coder: {preset: nonesuch}}": `no such preset "nonesuch"`,
		"resume: {allow: ['']}":               `resume.allow has an empty identity`,
	} {
		_, err := guard.Parse([]byte(doc))
		if err == nil || !strings.Contains(err.Error(), says) {
			t.Errorf("Parse(%s) = %v; want an error saying %q", doc, err, says)
		}
	}
}

func TestPresets(t *testing.T) {
	names := guard.Presets()
	for _, want := range []string{"guardstream", "runtime-spec", "aos", "zkit", "glue", "gemini-cli", "openhands", "cline", "openclaw"} {
		p, err := guard.Preset(want)
		if err != nil {
			t.Errorf("preset %s: %v (presets: %v)", want, err, names)
			continue
		}
		// A preset survives -print-policy: printed and parsed again, it is the same.
		b, _ := json.Marshal(p)
		again, err := guard.Parse(b)
		if err != nil || mustJSON(t, again) != string(b) {
			t.Errorf("preset %s does not survive printing: %v", want, err)
		}
	}
	def, err := guard.Preset("guardstream")
	if err != nil {
		t.Fatal(err)
	}
	def.Preset = ""
	if mustJSON(t, def) != mustJSON(t, guard.DefaultPolicy()) {
		t.Errorf("the guardstream preset is not the defaults:\n%s\n%s", mustJSON(t, def), mustJSON(t, guard.DefaultPolicy()))
	}
	if _, err := guard.Preset("nonesuch"); !errors.Is(err, guard.ErrUnknownPreset) {
		t.Errorf("an unknown preset: %v; want ErrUnknownPreset", err)
	}
	for _, path := range []string{"cline", "preset:cline"} {
		p, err := guard.Load(path)
		if err != nil || p.Preset != "cline" {
			t.Errorf("Load(%q) = preset %q, %v; want cline's", path, p.Preset, err)
		}
	}
	if _, err := guard.Load("no/such/policy.yaml"); err == nil || !strings.Contains(err.Error(), "or a preset: ") {
		t.Errorf("a missing file: %v; want an error listing the presets", err)
	}
	if p, err := guard.Load(""); err != nil || mustJSON(t, p) != mustJSON(t, guard.DefaultPolicy()) {
		t.Errorf("Load(\"\") = %s, %v; want the default policy", mustJSON(t, p), err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
