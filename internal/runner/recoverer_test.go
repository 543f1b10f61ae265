package runner

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// TestRecovererDoesNotAllocate: guarding against panics costs a plain
// allow no allocation.
func TestRecovererDoesNotAllocate(t *testing.T) {
	rec := recoverer{processors.NewChain()}
	r := rec.chain.NewRun()
	ev := event.Event{V: event.Version, Kind: event.KindCall, Tenant: "acme", Run: "r1", Call: "c1", Tool: "read_file"}
	var out processors.Out
	allocs := testing.AllocsPerRun(1000, func() {
		ev.Seq++
		if dl := rec.apply(r, &ev, &out); dl != nil || out.Verdict().Kind != event.Allow {
			t.Fatalf("a plain call drew %v, %+v", dl, out.Verdict())
		}
	})
	if allocs != 0 {
		t.Errorf("a plain allow through the recoverer allocated %v times", allocs)
	}
}
