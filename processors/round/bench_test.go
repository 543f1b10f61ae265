package round_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/round"
)

// BenchmarkRound measures the barrier, in a chain, over rounds of 16
// parallel calls whose results arrive shuffled; one op is one event (the
// round event or a result), 17 events per round.
func BenchmarkRound(b *testing.B) {
	const n = 16
	r := rand.New(rand.NewPCG(3, 3))
	h := processortest.NewHistory("acme", "bench")
	for k := range 64 {
		calls := make([]string, n)
		for i := range calls {
			calls[i] = fmt.Sprintf("call_%d_%d", k, i)
		}
		announce(h, 30000, calls...)
		r.Shuffle(n, func(i, j int) { calls[i], calls[j] = calls[j], calls[i] })
		results(h, calls...)
	}
	evs := h.Events()[1:]
	c := processors.NewChain(round.New(round.DefaultPolicy()))
	run := c.NewRun()
	var out processors.Out
	settled := 0
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ev := &evs[i%len(evs)]
		ev.Seq = int64(i + 1) // keep sequences rising past the history
		c.Apply(run, ev, &out)
		if len(out.Decisions) > 0 && out.Decisions[0].Kind == event.Settled {
			settled++
		}
		i++
	}
	if i >= len(evs) && settled == 0 {
		b.Fatal("no round settled")
	}
}
