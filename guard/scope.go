package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/guardstream/guardstream/processors"
)

// scope is one combination of tenant and agent class that a policy's
// layers distinguish; both empty for the default.
type scope struct {
	name          string
	tenant, agent string
}

// scopeName names the scope of a tenant and an agent class, as runs
// record it: "", "tenant:acme", "agent:coder", "tenant:acme/agent:coder".
func scopeName(tenant, agent string) string {
	switch {
	case tenant != "" && agent != "":
		return "tenant:" + tenant + "/agent:" + agent
	case tenant != "":
		return "tenant:" + tenant
	case agent != "":
		return "agent:" + agent
	}
	return ""
}

// scopes lists the scopes p's layers make, the default first, then in
// name order.
func (p Policy) scopes() []scope {
	out := []scope{{}}
	tenants := slices.Sorted(maps.Keys(p.Tenants))
	for _, a := range slices.Sorted(maps.Keys(p.Agents)) {
		out = append(out, scope{scopeName("", a), "", a})
	}
	for _, t := range tenants {
		out = append(out, scope{scopeName(t, ""), t, ""})
		agents := slices.Sorted(maps.Keys(p.Agents))
		for _, a := range nestedAgents(p.Tenants[t]) {
			if !slices.Contains(agents, a) {
				agents = append(agents, a)
			}
		}
		slices.Sort(agents)
		for _, a := range agents {
			out = append(out, scope{scopeName(t, a), t, a})
		}
	}
	return out
}

// pick returns the name of the most specific scope p has for a run of
// tenant and agent.
func (p Policy) pick(tenant, agent string) string {
	raw, t := p.Tenants[tenant]
	_, a := p.Agents[agent]
	a = a || slices.Contains(nestedAgents(raw), agent)
	switch {
	case t && a:
		return scopeName(tenant, agent)
	case t:
		return scopeName(tenant, "")
	case a:
		return scopeName("", agent)
	}
	return ""
}

// nestedAgents returns the agent classes a tenant's layer has layers for.
func nestedAgents(raw json.RawMessage) []string {
	var l struct {
		Agents map[string]json.RawMessage `json:"agents"`
	}
	_ = json.Unmarshal(raw, &l) // a malformed layer fails in resolve
	return slices.Sorted(maps.Keys(l.Agents))
}

// resolve returns the policy of one scope: p, then the tenant's layer,
// then the agent class's, then the agent class's within the tenant. A
// layer that names a preset starts from it instead of what came before.
func (p Policy) resolve(tenant, agent string) (Policy, error) {
	base := p
	base.Tenants, base.Agents = nil, nil
	var nested map[string]json.RawMessage
	var err error
	if raw, ok := p.Tenants[tenant]; ok {
		if base, err = apply(base, fmt.Sprintf("tenants[%q]", tenant), raw, true); err != nil {
			return Policy{}, err
		}
		nested, base.Agents = base.Agents, nil
	}
	if raw, ok := p.Agents[agent]; ok && agent != "" {
		if base, err = apply(base, fmt.Sprintf("agents[%q]", agent), raw, false); err != nil {
			return Policy{}, err
		}
	}
	if raw, ok := nested[agent]; ok && agent != "" {
		if base, err = apply(base, fmt.Sprintf("tenants[%q].agents[%q]", tenant, agent), raw, false); err != nil {
			return Policy{}, err
		}
	}
	if err := base.validateSections(); err != nil {
		return Policy{}, fmt.Errorf("scope %q: %w", scopeName(tenant, agent), err)
	}
	return base, nil
}

// apply lays a layer over base; only a tenant's layer may hold agents.
func apply(base Policy, where string, raw json.RawMessage, agents bool) (Policy, error) {
	p, err := overlay(base, raw)
	switch {
	case err != nil:
		return Policy{}, fmt.Errorf("%s: %w", where, err)
	case len(p.Tenants) > 0:
		return Policy{}, fmt.Errorf("%s: a layer cannot hold tenants; tenants are layers of the top-level policy", where)
	case len(p.Agents) > 0 && !agents:
		return Policy{}, fmt.Errorf("%s: an agent class's layer cannot hold agents", where)
	}
	return p, nil
}

// overlay decodes a layer over a copy of base, or over the preset it
// names. Unknown fields are errors.
func overlay(base Policy, raw json.RawMessage) (Policy, error) {
	var head struct {
		Preset string `json:"preset"`
	}
	if err := json.Unmarshal(raw, &head); err != nil {
		return Policy{}, err
	}
	if err := checkMoved(raw); err != nil {
		return Policy{}, err
	}
	var err error
	if head.Preset != "" {
		base, err = Preset(head.Preset)
	} else {
		base, err = clone(base)
	}
	if err != nil {
		return Policy{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&base); err != nil {
		return Policy{}, err
	}
	return base, nil
}

// clone returns a deep copy of p, so that decoding a layer over it leaves
// p's maps and slices alone.
func clone(p Policy) (Policy, error) {
	b, err := json.Marshal(p)
	if err != nil {
		return Policy{}, err
	}
	var c Policy
	err = json.Unmarshal(b, &c)
	return c, err
}

// Chain returns the processor chain for p, which must be valid (Parse
// validates): one scope per combination of tenant and agent class its
// layers distinguish, each run served by the most specific one for its
// tenant and the agent class of its run start.
func Chain(p Policy) *processors.Chain {
	var scopes []processors.Scope
	for _, sc := range p.scopes() {
		sp, err := p.resolve(sc.tenant, sc.agent)
		if err != nil {
			panic(fmt.Sprintf("guard: Chain of a policy that does not validate: %v", err))
		}
		scopes = append(scopes, processors.Scope{Name: sc.name, Procs: processorsOf(sp), Resume: sp.Resume})
	}
	if len(scopes) == 1 {
		return processors.NewScoped(nil, scopes...)
	}
	return processors.NewScoped(p.pick, scopes...)
}
