package repair

import (
	"slices"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// Status is the outcome of a check.
type Status uint8

// Outcomes of Check.
const (
	Valid    Status = iota // the text satisfies the schema as sent
	Repaired               // the repaired text in Result.Args satisfies it
	Invalid                // the text fails; Result.Diags say where
)

// Limits on the diagnostics of one result, which keep decisions small.
const (
	MaxDiags       = 5  // failures reported for an invalid text
	MaxRepairDiags = 16 // repairs reported for a repaired text
)

// maxRounds bounds the rounds of repairs.
const maxRounds = 4

// Result is the outcome of checking one JSON text.
type Result struct {
	Status Status
	// Args is the repaired JSON text, for Repaired.
	Args string
	// Diags are the repairs made, for Repaired, or the failures, for
	// Invalid: at most MaxRepairDiags or MaxDiags of them, sorted by path.
	Diags []event.Diag
	// Count is how many repairs or failures there were before the list
	// was cut to size.
	Count int
}

// Check validates the JSON text against s and repairs it if it can; see
// the package documentation for the repairs. Empty text counts as {}.
func (s *Schema) Check(text string) Result {
	if s.broken != "" {
		return invalid([]event.Diag{{Want: "a schema that compiles", Got: "a broken schema", Msg: "the schema does not compile: " + s.broken}})
	}
	if strings.TrimSpace(text) == "" {
		text = "{}"
	}
	v, fixes, err := parseRepairing(text)
	if err != nil {
		return invalid([]event.Diag{{Want: "JSON", Got: "invalid JSON", Msg: "not valid JSON: " + err.Error()}})
	}
	verr, failed := s.validate(v)
	switch {
	case failed != nil:
		return invalid([]event.Diag{{Want: "a value the validator can check", Got: "validator failure", Msg: failed.Error()}})
	case verr == nil && len(fixes) == 0:
		return Result{Status: Valid}
	case verr == nil:
		return repaired(v, fixes)
	}
	// The failures of the value as sent are what a refusal reports, so they
	// are worked out before the repairs change it.
	p := s.plan(v, verr)
	diags := s.diagnose(v, verr, p)
	if len(diags) == 0 { // not expected: every failure has a leaf
		diags = []event.Diag{{Want: "a value satisfying the schema", Got: describe(v), Msg: "the value does not satisfy the schema"}}
	}
	applied := fixes
	for round := 0; round < maxRounds && !p.empty(); round++ {
		var ds []event.Diag
		v, ds = p.apply(v)
		applied = append(applied, ds...)
		verr, failed = s.validate(v)
		switch {
		case failed != nil:
			return invalid(diags)
		case verr == nil:
			return repaired(v, applied)
		}
		p = s.plan(v, verr)
	}
	return invalid(diags)
}

func invalid(diags []event.Diag) Result {
	return Result{Status: Invalid, Diags: slices.Clip(diags[:min(len(diags), MaxDiags)]), Count: len(diags)}
}

func repaired(v any, diags []event.Diag) Result {
	return Result{Status: Repaired, Args: encode(v), Diags: slices.Clip(diags[:min(len(diags), MaxRepairDiags)]), Count: len(diags)}
}
