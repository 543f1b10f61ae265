package guard

import (
	"errors"
	"fmt"
	"os"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/budget"
	"github.com/guardstream/guardstream/processors/lease"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/pressure"
	"sigs.k8s.io/yaml"
)

// Policy is the settings of every guard. Its YAML or JSON form is the
// policy file guard-consumer reads with --policy; a field left out keeps
// its default.
type Policy struct {
	Loop     loop.Policy     `json:"loop"`
	Lease    lease.Policy    `json:"lease"`
	Pressure pressure.Policy `json:"pressure"`
	Budget   budget.Policy   `json:"budget"`
}

// DefaultPolicy returns the defaults of every guard.
func DefaultPolicy() Policy {
	return Policy{
		Loop:     loop.DefaultPolicy(),
		Lease:    lease.DefaultPolicy(),
		Pressure: pressure.DefaultPolicy(),
		Budget:   budget.DefaultPolicy(),
	}
}

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	return errors.Join(p.Loop.Validate(), p.Lease.Validate(), p.Pressure.Validate(), p.Budget.Validate())
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
// matters: guards that refuse a call come before guards that count it, and
// the budget, which defers calls, comes last.
func Chain(p Policy) *processors.Chain {
	return processors.NewChain(
		loop.New(p.Loop),
		lease.New(p.Lease),
		pressure.New(p.Pressure),
		budget.New(p.Budget),
	)
}
