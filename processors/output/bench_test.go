package output_test

import (
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/output"
	"github.com/guardstream/guardstream/processors/processortest"
)

// BenchmarkResult measures the processor, in a chain, on one result: an
// inline output (whose digest the processor computes) and a large one the
// runner loaded from the object store (whose digest it was given).
func BenchmarkResult(b *testing.B) {
	small := lines("/home/u/proj/src/main.go:", 100) // ~3 KiB
	large := lines("/home/u/proj/src/pkg/file.go:", 30000)
	for _, bc := range []struct {
		name string
		ev   event.Event
	}{
		{"inline-3KiB", event.Event{Kind: event.KindResult, Call: "c1", Out: small}},
		{"loaded-1MiB", event.Event{Kind: event.KindResult, Call: "c1", Out: large,
			Ref: &event.OutputRef{Digest: event.Digest([]byte(large)), Size: int64(len(large))}}},
		{"empty-search", event.Event{Kind: event.KindResult, Call: "c1", Tool: "grep"}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c := processors.NewChain(output.New(output.DefaultPolicy()))
			r := c.NewRun()
			var out processors.Out
			h := start("bench", "/home/u/proj")
			c.Apply(r, &h.Events()[0], &out)
			ev := bc.ev
			ev.V, ev.Tenant, ev.Run, ev.TS = event.Version, "acme", "bench", processortest.BaseTS
			b.SetBytes(int64(len(ev.Out)))
			b.ReportAllocs()
			var seq int64 = 1
			for b.Loop() {
				seq++
				ev.Seq = seq
				c.Apply(r, &ev, &out)
			}
			if len(out.Decisions) == 0 || !strings.HasPrefix(out.Decisions[0].Kind.String(), "output") {
				b.Fatal("no output decision")
			}
		})
	}
}
