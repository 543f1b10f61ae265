package pressure

import (
	"errors"
	"fmt"
)

// Policy holds the thresholds the guard reports.
type Policy struct {
	// Thresholds are percentages of the context window, each from 1 to
	// 100, in strictly ascending order. An empty list turns the guard off.
	Thresholds []int64 `json:"thresholds"`
}

// DefaultPolicy returns the thresholds of the reference designs: 70, 85
// and 95 percent. At 70 there is room to compact calmly, at 85 it is
// urgent, and at 95 the next step may not fit.
func DefaultPolicy() Policy {
	return Policy{Thresholds: []int64{70, 85, 95}}
}

// Validate reports every setting that makes no sense, joined into one
// error, or nil.
func (p Policy) Validate() error {
	var errs []error
	for i, t := range p.Thresholds {
		if t < 1 || t > 100 {
			errs = append(errs, fmt.Errorf("pressure.thresholds[%d] is %d; want a percentage from 1 to 100", i, t))
		}
		if i > 0 && t <= p.Thresholds[i-1] {
			errs = append(errs, fmt.Errorf("pressure.thresholds[%d] is %d, not above pressure.thresholds[%d] (%d); want them in ascending order without repeats",
				i, t, i-1, p.Thresholds[i-1]))
		}
	}
	return errors.Join(errs...)
}
