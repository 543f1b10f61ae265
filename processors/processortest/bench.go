package processortest

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
)

// Bench measures c applying evs to r, in turn and over again, b.N events
// in all, each renumbered past the run's last sequence so that none is a
// duplicate. It reports allocations and CPU time (ReportCPU) per event.
func Bench(b *testing.B, c *processors.Chain, r *processors.Run, evs []event.Event) {
	b.Helper()
	var out processors.Out
	b.ReportAllocs()
	b.ResetTimer()
	done := ReportCPU(b)
	for i := 0; i < b.N; i++ {
		ev := &evs[i%len(evs)]
		ev.Seq = r.Seq + 1
		c.Apply(r, ev, &out)
	}
	done()
}
