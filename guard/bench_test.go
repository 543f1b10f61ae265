package guard_test

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/bench"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// BenchmarkChainMix measures every guard of the default policy on
// guard-bench's fleet: 2,000 runs' steps, calls, results and heartbeats,
// interleaved, each result named by its digest as the runner names it.
// An operation is an event.
func BenchmarkChainMix(b *testing.B) {
	msgs := bench.Mix{Tenant: "acme", Runs: 2000, Events: 2000 * 90, Payload: 256}.Messages()
	evs := make([]event.Event, len(msgs))
	for i, m := range msgs {
		if err := event.DecodeEvent(m.Data, &evs[i]); err != nil {
			b.Fatal(err)
		}
		if ev := &evs[i]; ev.Kind == event.KindResult {
			ev.Ref = &event.OutputRef{Digest: event.Digest([]byte(ev.Out)), Size: int64(len(ev.Out))}
		}
	}
	c := guard.Chain(guard.DefaultPolicy())
	var out processors.Out
	var runs map[string]*processors.Run
	b.ReportAllocs()
	done := processortest.ReportCPU(b)
	for i := 0; b.Loop(); i = (i + 1) % len(evs) {
		if i == 0 {
			runs = make(map[string]*processors.Run, 2000) // the fleet again, as fresh runs
		}
		r := runs[evs[i].Run]
		if r == nil {
			r = c.NewRun()
			runs[evs[i].Run] = r
		}
		c.Apply(r, &evs[i], &out)
	}
	done()
}
