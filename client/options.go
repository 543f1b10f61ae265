package client

import (
	"fmt"
	"time"
)

// FailMode says what Call does when no verdict arrives in time.
type FailMode uint8

// Fail modes.
const (
	// FailClosed refuses the call: a tool that was not checked does not
	// run. The default.
	FailClosed FailMode = iota
	// FailOpen allows the call: the guard is advisory and its absence
	// must not stop the fleet.
	FailOpen
)

func (m FailMode) String() string {
	if m == FailOpen {
		return "fail-open"
	}
	return "fail-closed"
}

// Option configures a Client.
type Option func(*options) error

type options struct {
	timeout  time.Duration
	failMode FailMode
	advice   int
	inline   int
	now      func() time.Time
}

// DefaultInlineLimit is the largest output a result carries inline; larger
// ones go to the object store and travel by reference. It is well under
// guard-consumer's event limit (64 KiB) and the server's payload limit.
const DefaultInlineLimit = 32 << 10

func defaults() options {
	return options{timeout: 2 * time.Second, failMode: FailClosed, advice: 64, inline: DefaultInlineLimit, now: time.Now}
}

// WithVerdictTimeout sets how long Call waits for a verdict (default 2s).
func WithVerdictTimeout(d time.Duration) Option {
	return func(o *options) error {
		if d <= 0 {
			return fmt.Errorf("client: verdict timeout %v; want a positive duration", d)
		}
		o.timeout = d
		return nil
	}
}

// WithFailMode sets what Call does when the verdict timeout passes.
func WithFailMode(m FailMode) Option {
	return func(o *options) error {
		if m != FailClosed && m != FailOpen {
			return fmt.Errorf("client: unknown fail mode %d", m)
		}
		o.failMode = m
		return nil
	}
}

// WithAdviceBuffer sets how many undelivered advice decisions a run keeps
// (default 64); when full, the oldest is dropped.
func WithAdviceBuffer(n int) Option {
	return func(o *options) error {
		if n < 1 {
			return fmt.Errorf("client: advice buffer %d; want at least 1", n)
		}
		o.advice = n
		return nil
	}
}

// WithInlineLimit sets the largest output, in bytes, a result carries
// inline (default DefaultInlineLimit); larger outputs are put in the
// GUARD_OUTPUTS stream and sent by reference.
func WithInlineLimit(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return fmt.Errorf("client: inline limit %d; want 0 or more", n)
		}
		o.inline = n
		return nil
	}
}

// WithClock sets the clock event timestamps are taken from (tests).
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		o.now = now
		return nil
	}
}
