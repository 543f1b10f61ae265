package guard

import (
	"errors"
	"fmt"
	"os"

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
// its default.
type Policy struct {
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

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	return errors.Join(p.Schema.Validate(), p.Policy.Validate(), p.Loop.Validate(), p.AntiPattern.Validate(), p.Lease.Validate(),
		p.Round.Validate(), p.Output.Validate(), p.Pressure.Validate(), p.Budget.Validate())
}

// Load reads a YAML or JSON policy file over the defaults. Unknown fields
// are errors, so a misspelt setting is not silently ignored.
func Load(path string) (Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, fmt.Errorf("guard: reading policy: %w", err)
	}
	return Parse(b)
}

// Parse decodes a YAML or JSON policy over the defaults and validates it.
func Parse(b []byte) (Policy, error) {
	p := DefaultPolicy()
	if err := yaml.UnmarshalStrict(b, &p); err != nil {
		return Policy{}, fmt.Errorf("guard: parsing policy: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, fmt.Errorf("guard: invalid policy: %w", err)
	}
	return p, nil
}

// Chain returns the processor chain for p, which must be valid. The order
// matters: the schema guard repairs arguments before the others check
// them; guards that refuse a call (schema, policy, loop) come before guards
// that count it; and the budget, which defers calls, comes last.
func Chain(p Policy) *processors.Chain {
	pol, ap := p.Policy, p.AntiPattern
	pol.Vocabulary, ap.Vocabulary = p.Tools, p.Tools
	return processors.NewChain(
		schema.New(p.Schema),
		policy.New(pol),
		loop.New(p.Loop),
		antipattern.New(ap),
		lease.New(p.Lease),
		round.New(p.Round),
		output.New(p.Output),
		pressure.New(p.Pressure),
		budget.New(p.Budget),
	)
}
