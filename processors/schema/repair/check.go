package repair

import (
	"slices"

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

// Check validates the JSON text against s and repairs it as o allows; see
// the package documentation for the repairs. Empty text counts as {}. A nil
// o means the default options.
func (s *Schema) Check(text string, o *Options) Result {
	if o == nil {
		o = &defaultOptions
	}
	if s.broken != "" {
		return invalid([]event.Diag{{Want: "a schema that compiles", Got: "a broken schema", Msg: "the schema does not compile: " + s.broken}})
	}
	v, fixes, bad := read(text, o)
	if bad != nil {
		return *bad
	}
	verr, failed := s.validate(v)
	if failed == nil && verr != nil && o.LenientNull {
		// Nulls for optional properties count as absent: dropped, and
		// said only if the text is rewritten anyway.
		if p := s.plan(v, verr, SetOf(DropNull)); !p.empty() {
			var drops []event.Diag
			v, drops = p.apply(v)
			if verr, failed = s.validate(v); failed == nil && verr == nil && len(fixes) == 0 {
				return Result{Status: Valid}
			}
			fixes = append(fixes, drops...)
		}
	}
	switch {
	case failed != nil:
		return invalid([]event.Diag{validatorFailure(failed)})
	case verr == nil && len(fixes) == 0:
		return Result{Status: Valid}
	case verr == nil:
		return repaired(v, fixes)
	}
	// The failures of the value as sent are what a refusal reports, so they
	// are worked out before the repairs change it.
	p := s.plan(v, verr, o.Repairs)
	diags := s.diagnose(v, verr, p)
	if len(diags) == 0 { // not expected: every failure has a leaf
		diags = []event.Diag{{Want: "a value satisfying the schema", Got: describe(v), Msg: "the value does not satisfy the schema"}}
	}
	applied := fixes
	for round := 0; round < maxRounds && !p.empty(); round++ {
		var ds []event.Diag
		v, ds = p.apply(v)
		applied = append(applied, ds...)
		v, applied = unlinkPaths(text, v, o, applied) // a rename may have moved a link into a path parameter
		verr, failed = s.validate(v)
		switch {
		case failed != nil:
			return invalid(diags)
		case verr == nil:
			return repaired(v, applied)
		}
		p = s.plan(v, verr, o.Repairs)
	}
	return invalid(diags)
}

// notJSON describes why text is not JSON.
func notJSON(err error) event.Diag {
	return event.Diag{Want: "JSON", Got: "invalid JSON", Msg: "not valid JSON: " + err.Error()}
}

func validatorFailure(err error) event.Diag {
	return event.Diag{Want: "a value the validator can check", Got: "validator failure", Msg: err.Error()}
}

func invalid(diags []event.Diag) Result {
	return Result{Status: Invalid, Diags: slices.Clip(diags[:min(len(diags), MaxDiags)]), Count: len(diags)}
}

func repaired(v any, diags []event.Diag) Result {
	return Result{Status: Repaired, Args: encode(v), Diags: slices.Clip(diags[:min(len(diags), MaxRepairDiags)]), Count: len(diags)}
}
