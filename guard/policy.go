package guard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
)

// Policy is the settings of every guard. Its JSON form is the policy file
// guard-consumer reads with --policy; a field left out keeps its default.
type Policy struct {
	Loop loop.Policy `json:"loop"`
}

// DefaultPolicy returns the defaults of every guard.
func DefaultPolicy() Policy {
	return Policy{Loop: loop.DefaultPolicy()}
}

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	return p.Loop.Validate()
}

// Load reads a JSON policy file over the defaults. Unknown fields are
// errors, so a misspelt setting is not silently ignored.
func Load(path string) (Policy, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, fmt.Errorf("guard: reading policy: %w", err)
	}
	return Parse(b)
}

// Parse decodes a JSON policy over the defaults and validates it.
func Parse(b []byte) (Policy, error) {
	p := DefaultPolicy()
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return Policy{}, fmt.Errorf("guard: parsing policy: %w", err)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, fmt.Errorf("guard: invalid policy: %w", err)
	}
	return p, nil
}

// Chain returns the processor chain for p, which must be valid.
func Chain(p Policy) *processors.Chain {
	return processors.NewChain(loop.New(p.Loop))
}
