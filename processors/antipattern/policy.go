package antipattern

import (
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/internal/workspace"
)

// Policy holds the detector's settings. A threshold of 0 turns its check
// off.
type Policy struct {
	// HallucinatedSuccess overrides a run's claimed success when its last
	// verification failed or a promised output is missing. On by default.
	HallucinatedSuccess bool `json:"hallucinated_success"`
	// PlanningAdvise is the number of planning steps without an applied
	// change that the run may take before it is advised to commit: 3
	// advises on the 4th.
	PlanningAdvise int `json:"planning_advise"`
	// PlanningStop is the number of planning steps without an applied
	// change that stops the run with PLANNING_LOOP.
	PlanningStop int `json:"planning_stop"`
	// RetestAdvise is the number of failing test runs in a row, with no
	// change to the work between them, at which the run is advised to
	// read the failures and change something (steer read_errors).
	// Failing tests are a test runner's answer, not a failed call, so the
	// loop guard's mistakes rule does not count them; run again on the
	// same work, they answer what is known.
	RetestAdvise int `json:"retest_advise"`
	// RetestStop is the number of such failing test runs that stops the
	// run with TOO_MANY_MISTAKES.
	RetestStop int `json:"retest_stop"`
	// Vocabulary says which tools write files and which argument keys hold
	// their paths and patches. The policy document sets it once, at its top
	// (guard.Policy.Tools), for this guard and the policy guard alike.
	Vocabulary workspace.Vocabulary `json:"-"`
}

// DefaultPolicy returns the defaults of the reference designs: success
// overridden, advise after 3 planning steps without a change, stop at 5;
// failing test runs on unchanged work advised at 3 and stopped at 6, as
// the loop guard's mistakes are.
func DefaultPolicy() Policy {
	return Policy{
		HallucinatedSuccess: true,
		PlanningAdvise:      3,
		PlanningStop:        5,
		RetestAdvise:        3,
		RetestStop:          6,
		Vocabulary:          workspace.DefaultVocabulary(),
	}
}

// Validate reports every setting that makes no sense.
func (p Policy) Validate() error {
	var errs []error
	if p.PlanningAdvise < 0 || p.PlanningStop < 0 {
		errs = append(errs, fmt.Errorf("antipattern.planning_advise and planning_stop must be 0 (off) or more"))
	}
	if p.PlanningAdvise > 0 && p.PlanningStop > 0 && p.PlanningAdvise+1 >= p.PlanningStop {
		errs = append(errs, fmt.Errorf("antipattern.planning_advise (%d) advises on planning step %d, which must come before planning_stop (%d)",
			p.PlanningAdvise, p.PlanningAdvise+1, p.PlanningStop))
	}
	if p.RetestAdvise < 0 || p.RetestStop < 0 {
		errs = append(errs, fmt.Errorf("antipattern.retest_advise and retest_stop must be 0 (off) or more"))
	}
	if p.RetestAdvise > 0 && p.RetestStop > 0 && p.RetestAdvise >= p.RetestStop {
		errs = append(errs, fmt.Errorf("antipattern.retest_advise (%d) must come before retest_stop (%d)", p.RetestAdvise, p.RetestStop))
	}
	return errors.Join(errs...)
}
