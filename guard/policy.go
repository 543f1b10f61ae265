package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/guardstream/guardstream/internal/workspace"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/antipattern"
	"github.com/guardstream/guardstream/processors/budget"
	"github.com/guardstream/guardstream/processors/lease"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/output"
	"github.com/guardstream/guardstream/processors/policy"
	"github.com/guardstream/guardstream/processors/pressure"
	"github.com/guardstream/guardstream/processors/round"
	"github.com/guardstream/guardstream/processors/schema"
	"sigs.k8s.io/yaml"
)

// Policy is the settings of every guard. Its YAML or JSON form is the
// policy file guard-consumer reads with --policy; a field left out keeps
// the value of the preset the file starts from (guardstream's defaults
// unless it names another).
//
// A policy is scoped: its sections are the default; Tenants and Agents
// hold layers, partial documents of the same form, that override it for a
// tenant, an agent class, and an agent class within a tenant, in that
// order. Within a scope, rules override themselves per tool and class of
// tools. One guard-consumer serves every scope at once (Chain).
type Policy struct {
	// Preset names the preset this policy starts from (guard/presets);
	// empty: guardstream's own defaults.
	Preset string `json:"preset,omitempty"`
	// Tools says which argument keys hold paths and patches and which
	// tools write files, for every guard that reads paths out of calls.
	Tools       workspace.Vocabulary `json:"tools"`
	Schema      schema.Policy        `json:"schema"`
	Policy      policy.Policy        `json:"policy"`
	Loop        loop.Policy          `json:"loop"`
	AntiPattern antipattern.Policy   `json:"antipattern"`
	Lease       lease.Policy         `json:"lease"`
	Round       round.Policy         `json:"round"`
	Output      output.Policy        `json:"output"`
	Pressure    pressure.Policy      `json:"pressure"`
	Budget      budget.Policy        `json:"budget"`
	// Resume says who may resume the runs of this scope.
	Resume processors.ResumePolicy `json:"resume"`

	// Tenants holds, by tenant id, layers over this policy. A tenant's
	// layer may hold agents: layers for agent classes within the tenant.
	Tenants map[string]json.RawMessage `json:"tenants,omitempty"`
	// Agents holds, by agent class (run_start agent), layers over this
	// policy and the run's tenant's layer.
	Agents map[string]json.RawMessage `json:"agents,omitempty"`
}

// DefaultPolicy returns the defaults of every guard.
func DefaultPolicy() Policy {
	return Policy{
		Tools:       workspace.DefaultVocabulary(),
		Schema:      schema.DefaultPolicy(),
		Policy:      policy.DefaultPolicy(),
		Loop:        loop.DefaultPolicy(),
		AntiPattern: antipattern.DefaultPolicy(),
		Lease:       lease.DefaultPolicy(),
		Round:       round.DefaultPolicy(),
		Output:      output.DefaultPolicy(),
		Pressure:    pressure.DefaultPolicy(),
		Budget:      budget.DefaultPolicy(),
	}
}

// Validate reports every setting that makes no sense, in every scope.
func (p Policy) Validate() error {
	errs := []error{p.validateSections()}
	for _, sc := range p.scopes() {
		if sc.name == "" {
			continue
		}
		if _, err := p.resolve(sc.tenant, sc.agent); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// validateSections validates one scope's settings.
func (p Policy) validateSections() error {
	return errors.Join(p.Schema.Validate(), p.Policy.Validate(), p.Loop.Validate(), p.AntiPattern.Validate(), p.Lease.Validate(),
		p.Round.Validate(), p.Output.Validate(), p.Pressure.Validate(), p.Budget.Validate(), p.Resume.Validate())
}

// Load reads a YAML or JSON policy file over the preset it names, or, for
// "preset:NAME" or a bare NAME that is no file, a preset. An empty path is
// the default policy, as a -policy flag left out means. Errors name the
// file.
func Load(path string) (Policy, error) {
	if path == "" {
		return DefaultPolicy(), nil
	}
	name, isPreset := strings.CutPrefix(path, "preset:")
	if _, err := os.Stat(path); !isPreset && errors.Is(err, fs.ErrNotExist) && hasPreset(path) {
		name, isPreset = path, true
	}
	if isPreset {
		return Preset(name)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, fmt.Errorf("guard: reading policy: %w (name a YAML or JSON file, or a preset: %s)", err, strings.Join(Presets(), ", "))
	}
	p, err := Parse(b)
	if err != nil {
		return Policy{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, nil
}

// Parse decodes a YAML or JSON policy over the preset it names (the
// defaults if none) and validates it. Unknown fields are errors, so a
// misspelt setting is not silently ignored.
func Parse(b []byte) (Policy, error) {
	p, err := parse(b, 0)
	if err != nil {
		return Policy{}, err
	}
	if err := p.Validate(); err != nil {
		return Policy{}, fmt.Errorf("%w: %w", ErrInvalidPolicy, err)
	}
	return p, nil
}

// parse decodes b over its preset, depth presets deep, without
// validating.
func parse(b []byte, depth int) (Policy, error) {
	js, err := yaml.YAMLToJSON(b)
	if err != nil {
		return Policy{}, fmt.Errorf("guard: parsing policy: %w", err)
	}
	var head struct {
		Preset string `json:"preset"`
	}
	_ = json.Unmarshal(js, &head) // a malformed document fails below, with the decoder's words
	if err := checkMoved(js); err != nil {
		return Policy{}, err
	}
	p := DefaultPolicy()
	if head.Preset != "" {
		if p, err = preset(head.Preset, depth+1); err != nil {
			return Policy{}, err
		}
	}
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		return Policy{}, fmt.Errorf("guard: parsing policy: %w", err)
	}
	return p, nil
}

// checkMoved reports a setting of doc, a policy or a layer as JSON, that
// has moved elsewhere, and where to, instead of the decoder's "unknown
// field".
func checkMoved(doc []byte) error {
	var d struct {
		Budget map[string]json.RawMessage `json:"budget"`
	}
	if json.Unmarshal(doc, &d) != nil {
		return nil // the decoder says what is wrong
	}
	for _, key := range []string{"fan_out", "fan_out_default"} {
		if _, ok := d.Budget[key]; ok {
			return fmt.Errorf("guard: parsing policy: budget.%s has moved: per-tool budgets are the loop rule fan_out "+
				"(identity: [tool], window: run, a ladder per tool in tools; the guardstream preset has it)", key)
		}
	}
	return nil
}

// processorsOf returns the processors of one scope's policy, which must
// be valid. The order matters: the schema guard repairs arguments before
// the others check them; guards that refuse a call (schema, policy, loop)
// come before guards that count it; and the budget, which defers calls,
// comes last.
func processorsOf(p Policy) []processors.Processor {
	pol, ap, sch, lp := p.Policy, p.AntiPattern, p.Schema, p.Loop
	pol.Vocabulary, ap.Vocabulary, sch.PathKeys, lp.Vocabulary = p.Tools, p.Tools, p.Tools.PathKeys, p.Tools
	return []processors.Processor{
		schema.New(sch),
		policy.New(pol),
		loop.New(lp),
		antipattern.New(ap),
		lease.New(p.Lease),
		round.New(p.Round),
		output.New(p.Output),
		pressure.New(p.Pressure),
		budget.New(p.Budget),
	}
}
