package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors/schema/repair"
)

// DefaultMaxAttempts is the reference designs' REPAIR_MAX_ATTEMPTS: two
// invalid calls in a row are refused, the third stops the run.
const DefaultMaxAttempts = 2

// Policy holds the guard's settings and the schemas the policy registers.
// Its JSON form is the "schema" section of the policy file, with schemas
// written inline:
//
//	{
//	  "max_attempts": 2,
//	  "default": {"tools": {"read_file": {"type": "object", ...}}},
//	  "agents": {"coder": {"tools": {...}, "docs": {"plan": {...}}}}
//	}
type Policy struct {
	// MaxAttempts is how many invalid calls (or documents) in a row are
	// refused; the next one stops the run with SYSTEM_ERROR. 0 never
	// stops: invalid calls are refused however many there are.
	MaxAttempts int `json:"max_attempts"`
	// Default registers tools and documents for every agent class.
	Default Registry `json:"default"`
	// Agents registers tools and documents for one agent class (a run
	// start's agent), extending Default and overriding its entries by name.
	Agents map[string]Registry `json:"agents,omitempty"`
}

// Registry maps names to JSON Schemas (draft 2020-12), written inline as
// JSON: tools to the schema of their arguments, documents to the schema of
// the document.
type Registry struct {
	Tools map[string]json.RawMessage `json:"tools,omitempty"`
	Docs  map[string]json.RawMessage `json:"docs,omitempty"`
}

// DefaultPolicy returns the defaults: two repair attempts and no
// registered schemas, so only runs that declare their tools are checked.
func DefaultPolicy() Policy {
	return Policy{MaxAttempts: DefaultMaxAttempts}
}

// Validate reports every setting that makes no sense, including every
// registered schema that does not compile.
func (p Policy) Validate() error {
	var errs []error
	if p.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("schema.max_attempts is %d; want 0 (never stop) or more", p.MaxAttempts))
	}
	errs = append(errs, p.Default.validate("schema.default")...)
	for _, class := range sortedNames(p.Agents) {
		if class == "" {
			errs = append(errs, errors.New("schema.agents: an agent class name is empty"))
		}
		errs = append(errs, p.Agents[class].validate(fmt.Sprintf("schema.agents[%q]", class))...)
	}
	return errors.Join(errs...)
}

func (r Registry) validate(at string) []error {
	var errs []error
	for _, set := range []struct {
		key     string
		schemas map[string]json.RawMessage
	}{{"tools", r.Tools}, {"docs", r.Docs}} {
		for _, name := range sortedNames(set.schemas) {
			field := fmt.Sprintf("%s.%s[%q]", at, set.key, name)
			if name == "" || len(name) > event.MaxToolLen {
				errs = append(errs, fmt.Errorf("%s: want a name of 1 to %d bytes", field, event.MaxToolLen))
			}
			if broken := repair.Compile(string(set.schemas[name])).Broken(); broken != "" {
				errs = append(errs, fmt.Errorf("%s: the schema does not compile: %s", field, broken))
			}
		}
	}
	return errs
}

func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for name := range m {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
