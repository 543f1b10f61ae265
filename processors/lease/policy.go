package lease

import "fmt"

// Policy holds the lease settings.
type Policy struct {
	// DefaultTTL is the lease, in ms, of a run that declares none; 0 means
	// such runs have no lease.
	DefaultTTL int64 `json:"default_ttl_ms"`
	// MaxTTL caps the lease a run may declare, in ms; 0 means no cap.
	MaxTTL int64 `json:"max_ttl_ms"`
}

// MinTTL is the shortest lease, in ms: the server schedules to the
// millisecond, but a lease shorter than a second is noise.
const MinTTL = 1000

// DefaultPolicy returns no default lease and a one-day cap.
func DefaultPolicy() Policy {
	return Policy{MaxTTL: 24 * 60 * 60 * 1000}
}

// Validate reports the first setting that makes no sense, or nil.
func (p Policy) Validate() error {
	switch {
	case p.DefaultTTL != 0 && p.DefaultTTL < MinTTL:
		return fmt.Errorf("lease.default_ttl_ms is %d; want 0 (none) or at least %d", p.DefaultTTL, MinTTL)
	case p.MaxTTL < 0:
		return fmt.Errorf("lease.max_ttl_ms is %d; want 0 (no cap) or more", p.MaxTTL)
	case p.MaxTTL != 0 && p.DefaultTTL > p.MaxTTL:
		return fmt.Errorf("lease.default_ttl_ms (%d) is above lease.max_ttl_ms (%d)", p.DefaultTTL, p.MaxTTL)
	}
	return nil
}
