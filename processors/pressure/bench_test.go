package pressure_test

import (
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/pressure"
	"github.com/guardstream/guardstream/processors/processortest"
)

// BenchmarkChain measures the pressure guard, in a chain, over a realistic
// run: each step followed by two calls and their results, the context
// growing by 3% of the window a step and compacted back to 30% once it
// passes 96%, so every cycle of about 23 steps crosses each threshold once.
func BenchmarkChain(b *testing.B) {
	const win = 200_000
	h := processortest.NewHistory("acme", "bench")
	ctx := int64(0.3 * win)
	for range 230 {
		h.Add(event.Event{Kind: event.KindStep, Step: h.Seq(), Turn: 1, Context: ctx, Window: win})
		h.Call("read_file", `{"path":"a.go"}`).Result(false, "package a")
		h.Call("grep", `{"q":"x"}`).Result(false, "a.go:1")
		if ctx += win * 3 / 100; ctx > win*96/100 {
			ctx = win * 30 / 100
		}
	}
	evs := h.Events()[1:]
	c := processors.NewChain(pressure.New(pressure.DefaultPolicy()))
	var out processors.Out
	r := c.NewRun()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := &evs[i%len(evs)]
		ev.Seq = int64(i + 1) // keep sequences rising past the history
		c.Apply(r, ev, &out)
	}
}

// BenchmarkStep measures a step that crosses no threshold, the common
// case, alone.
func BenchmarkStep(b *testing.B) {
	c := processors.NewChain(pressure.New(pressure.DefaultPolicy()))
	var out processors.Out
	r := c.NewRun()
	ev := event.Event{V: event.Version, Kind: event.KindStep, Tenant: "acme", Run: "bench", TS: processortest.BaseTS, Context: 50_000, Window: 200_000}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev.Seq = int64(i + 1)
		c.Apply(r, &ev, &out)
	}
}
