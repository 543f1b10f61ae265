package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/workspace"
	"github.com/guardstream/guardstream/processors/schema/repair"
)

// DefaultMaxAttempts is the reference designs' REPAIR_MAX_ATTEMPTS: two
// invalid calls in a row are refused, the third stops the run.
const DefaultMaxAttempts = 2

// Values of Policy.Mode.
const (
	ModeRepair   = "repair"   // validate, and make the repairs Policy.Repairs lists
	ModeValidate = "validate" // validate only: never change arguments or documents
)

// Values of Policy.Schemaless.
const (
	SchemalessJSON = "json" // the arguments must be JSON
	SchemalessPass = "pass" // the arguments are not checked at all
)

// Values of Policy.UnknownTools.
const (
	UnknownReject = "reject" // refuse the call with UNKNOWN_TOOL
	UnknownAllow  = "allow"  // check the call as one of a tool without a schema
)

// Policy holds the guard's settings and the schemas the policy registers.
// Its JSON form is the "schema" section of the policy file, with schemas
// written inline:
//
//	{
//	  "max_attempts": 2,
//	  "mode": "repair",
//	  "repairs": ["code_fence", "trailing_comma", ...],
//	  "lenient_null": false,
//	  "schemaless": "json",
//	  "unknown_tools": "reject",
//	  "default": {"tools": {"read_file": {"type": "object", ...}}},
//	  "agents": {"coder": {"tools": {...}, "docs": {"plan": {...}}}}
//	}
type Policy struct {
	// MaxAttempts is how many invalid calls (or documents) in a row are
	// refused; the next one stops the run with SYSTEM_ERROR. 0 never
	// stops: invalid calls are refused however many there are.
	MaxAttempts int `json:"max_attempts"`
	// Mode is ModeRepair (the default: invalid arguments and documents are
	// repaired when the repairs in Repairs make them fit) or ModeValidate
	// (they are only validated: whatever fails is refused, whatever
	// Repairs says).
	Mode string `json:"mode"`
	// Repairs names the repairs repair mode makes (repair.Names lists
	// them); the default is every one but truncated_string. An empty list
	// makes none.
	Repairs []string `json:"repairs"`
	// LenientNull treats null for an optional property that does not
	// allow null as if the property were absent, so such a call is valid
	// as sent. Off by default: the null is a failure (dropped by the
	// drop_null repair).
	LenientNull bool `json:"lenient_null"`
	// Schemaless says what happens to a call of a tool without a schema:
	// SchemalessJSON (the default: its arguments must be JSON, repaired by
	// the repairs of JSON text) or SchemalessPass (not checked). A tool
	// has no schema when nothing is registered for the run at all, or when
	// UnknownTools allows tools nothing registers. (A tool registered with
	// empty schema text has a schema, which accepts any JSON.)
	Schemaless string `json:"schemaless"`
	// UnknownTools says what happens to a call of a tool nothing registers
	// for a run that has registered tools: UnknownReject (the default:
	// refused with UNKNOWN_TOOL) or UnknownAllow (checked as a tool
	// without a schema). A run with no registered tools has no unknown
	// tools.
	UnknownTools string `json:"unknown_tools"`
	// PathKeys are the argument keys whose values are paths, for the
	// markdown_link repair. guard.Chain sets them from the policy's tool
	// vocabulary.
	PathKeys []string `json:"-"`
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

// DefaultPolicy returns the defaults: repair mode with every repair but
// truncated_string, two repair attempts, strict nulls, the arguments of
// every call checked to be JSON, unknown tools refused, and no registered
// schemas.
func DefaultPolicy() Policy {
	var repairs []string
	for _, name := range repair.Names() {
		if r, _ := repair.ParseRepair(name); repair.DefaultRepairs().Has(r) {
			repairs = append(repairs, name)
		}
	}
	return Policy{
		MaxAttempts: DefaultMaxAttempts, Mode: ModeRepair, Repairs: repairs,
		Schemaless: SchemalessJSON, UnknownTools: UnknownReject, PathKeys: workspace.DefaultPathKeys(),
	}
}

// Validate reports every setting that makes no sense, including every
// registered schema that does not compile.
func (p Policy) Validate() error {
	var errs []error
	if p.MaxAttempts < 0 {
		errs = append(errs, fmt.Errorf("schema.max_attempts is %d; want 0 (never stop) or more", p.MaxAttempts))
	}
	if p.Mode != ModeRepair && p.Mode != ModeValidate {
		errs = append(errs, fmt.Errorf("schema.mode is %q; want %q (repair what the repairs can) or %q (validate only)", p.Mode, ModeRepair, ModeValidate))
	}
	errs = append(errs, validateRepairs(p.Repairs)...)
	if p.Schemaless != SchemalessJSON && p.Schemaless != SchemalessPass {
		errs = append(errs, fmt.Errorf("schema.schemaless is %q; want %q (the arguments of a tool without a schema must be JSON) or %q (they are not checked)",
			p.Schemaless, SchemalessJSON, SchemalessPass))
	}
	if p.UnknownTools != UnknownReject && p.UnknownTools != UnknownAllow {
		errs = append(errs, fmt.Errorf("schema.unknown_tools is %q; want %q (refuse calls of tools nothing registers) or %q (check them as tools without a schema)",
			p.UnknownTools, UnknownReject, UnknownAllow))
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

func validateRepairs(names []string) []error {
	var errs []error
	var set repair.Set
	for i, name := range names {
		r, ok := repair.ParseRepair(name)
		switch {
		case !ok:
			errs = append(errs, fmt.Errorf("schema.repairs[%d] is %q, which is no repair; want one of %s", i, name, strings.Join(repair.Names(), ", ")))
		case set.Has(r):
			errs = append(errs, fmt.Errorf("schema.repairs[%d]: %s is listed twice", i, name))
		}
		set |= repair.SetOf(r)
	}
	if set.Has(repair.TruncatedString) && !set.Has(repair.MissingClosers) {
		errs = append(errs, errors.New("schema.repairs lists truncated_string but not missing_closers, which closes the objects and arrays around the cut-off string; add missing_closers or remove truncated_string"))
	}
	return errs
}

// options returns the repair options p asks for.
func (p Policy) options() repair.Options {
	o := repair.Options{LenientNull: p.LenientNull, PathKeys: p.PathKeys}
	if p.Mode == ModeRepair {
		for _, name := range p.Repairs {
			if r, ok := repair.ParseRepair(name); ok {
				o.Repairs |= repair.SetOf(r)
			}
		}
	}
	return o
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
