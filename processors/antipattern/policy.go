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
	// Vocabulary says which tools write files and which argument keys hold
	// their paths and patches. The policy document sets it once, at its top
	// (guard.Policy.Tools), for this guard and the policy guard alike.
	Vocabulary workspace.Vocabulary `json:"-"`
}

// DefaultPolicy returns the defaults of the reference designs: success
// overridden, advise after 3 planning steps without a change, stop at 5.
func DefaultPolicy() Policy {
	return Policy{
		HallucinatedSuccess: true,
		PlanningAdvise:      3,
		PlanningStop:        5,
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
	return errors.Join(errs...)
}
