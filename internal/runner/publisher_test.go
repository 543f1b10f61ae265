package runner

import (
	"errors"
	"testing"
	"time"
)

// TestStallClockSkipsAPause: a publisher whose process did not run for
// longer than the publish timeout (SIGSTOP, a pause) does not fail its
// outstanding publishes on the first check after it resumes, when their
// acknowledgements may be waiting unread; checks that go on regularly
// with nothing acknowledged do fail it.
func TestStallClockSkipsAPause(t *testing.T) {
	const timeout = 100 * time.Millisecond
	long := time.Now().Add(-10 * timeout)
	p := &publisher{timeout: timeout, next: 2, stored: 1, progress: long, checked: long} // one outstanding
	if err := p.stalled(); err != nil {
		t.Fatalf("first check after a pause: %v; want the stall clock started again", err)
	}
	if err := p.stalled(); err != nil {
		t.Fatalf("check right after: %v", err)
	}
	p.progress = long // checks went on, nothing was acknowledged for 10 timeouts
	if err := p.stalled(); !errors.Is(err, errStalled) {
		t.Fatalf("checks made in time, the oldest publish waiting 10 timeouts: %v; want errStalled", err)
	}
	p.stored = 2 // acknowledged
	if err := p.stalled(); err != nil {
		t.Fatalf("nothing outstanding: %v", err)
	}
}
