package guard_test

import (
	"fmt"
	"math/bits"
	"runtime"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
)

// TestPlainAllowDoesNotAllocate: with every guard of the default policy,
// and of every preset, in the chain, a step and a plain allowed call
// allocate nothing in steady state. (A result does: it draws the output
// view.)
func TestPlainAllowDoesNotAllocate(t *testing.T) {
	eachPreset(t, func(t *testing.T, p guard.Policy) { plainAllowDoesNotAllocate(t, guard.Chain(p)) })
}

// eachPreset runs test on the policy of every preset, the default's
// among them, as a subtest named for it.
func eachPreset(t *testing.T, test func(*testing.T, guard.Policy)) {
	for _, name := range guard.Presets() {
		t.Run(name, func(t *testing.T) {
			p, err := guard.Preset(name)
			if err != nil {
				t.Fatal(err)
			}
			test(t, p)
		})
	}
}

// plainAllowDoesNotAllocate measures c over runs of a well-behaved agent.
// Deciding is deterministic, so an allocation of the chain's recurs in
// every attempt; the runtime's own (a GC worker's, on a loaded machine)
// does not, so one clean attempt of three passes.
func plainAllowDoesNotAllocate(t *testing.T, c *processors.Chain) {
	var mallocs uint64
	var measured int
	for range 3 {
		if mallocs, measured = countAllocs(t, c); mallocs == 0 {
			return
		}
	}
	t.Errorf("steps and plain allowed calls allocated %d times in %d rounds", mallocs, measured)
}

// countAllocs returns the allocations of the steps and calls of five runs
// of a well-behaved agent, after warm-up, and the rounds measured.
func countAllocs(t *testing.T, c *processors.Chain) (mallocs uint64, measured int) {
	// As testing.AllocsPerRun does: one P, so that no other goroutine
	// allocates between two readings of the process-wide count.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	evs := roundsOfAgent(100)
	var out processors.Out
	var ms runtime.MemStats
	for range 5 { // five runs, each within the default limits
		r := c.NewRun()
		c.Apply(r, &evs[0], &out)
		for k, i := 0, 1; i+2 < len(evs); k, i = k+1, i+3 {
			measure := k >= 30 // after warm-up: capacities settle
			if measure {
				runtime.ReadMemStats(&ms)
				mallocs -= ms.Mallocs
			}
			c.Apply(r, &evs[i], &out) // step
			c.Apply(r, &evs[i+1], &out)
			if v := out.Verdict(); v == nil || v.Kind != event.Allow {
				t.Fatalf("call %d: %+v, want a plain allow", k, v)
			}
			if measure {
				runtime.ReadMemStats(&ms)
				mallocs += ms.Mallocs
				measured++
			}
			c.Apply(r, &evs[i+2], &out) // result
		}
	}
	return mallocs, measured
}

// roundsOfAgent returns a run of n rounds of a well-behaved agent: a step,
// a call, its result.
func roundsOfAgent(n int) []event.Event {
	h := processortest.NewHistory("acme", "plain")
	for i := range n {
		h.Add(event.Event{Kind: event.KindStep, Step: int64(i), Turn: int64(1 + i/8), Context: 1000, Window: 100000})
		h.Call([]string{"read_file", "grep", "list_dir", "edit_file"}[i%4], fmt.Sprintf(`{"path":"src/f%d.go","n":%d}`, i%11, i))
		h.Result(false, "")
	}
	return h.Events()
}

// BenchmarkChainPlainAllow measures every guard of the default policy
// deciding a plain allowed call.
func BenchmarkChainPlainAllow(b *testing.B) {
	c := guard.Chain(guard.DefaultPolicy())
	evs := roundsOfAgent(100)
	var out processors.Out
	b.ReportAllocs()
	r := c.NewRun()
	c.Apply(r, &evs[0], &out)
	for i, j := 0, 1; i < b.N; i, j = i+1, j+3 {
		if j+2 >= len(evs) {
			b.StopTimer()
			r, j = c.NewRun(), 1 // a fresh run: stay within the run's limits
			c.Apply(r, &evs[0], &out)
			b.StartTimer()
		}
		b.StopTimer()
		c.Apply(r, &evs[j], &out)
		b.StartTimer()
		c.Apply(r, &evs[j+1], &out)
		b.StopTimer()
		c.Apply(r, &evs[j+2], &out)
		b.StartTimer()
	}
}

// BenchmarkChainRunStart measures every guard of the default policy
// taking in a run start that declares n tools, each with its own schema,
// one of them a shell tool's.
func BenchmarkChainRunStart(b *testing.B) {
	for _, n := range []int{1, 10, 100, event.MaxDeclared} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			tools := []event.Schema{{Name: "execute_bash", Schema: `{"type":"object","properties":{"command":{"type":"string"}},"required":["command"]}`}}
			for i := 1; i < n; i++ {
				tools = append(tools, event.Schema{Name: fmt.Sprintf("tool_%d", i), Schema: fmt.Sprintf(
					`{"type":"object","properties":{"path":{"type":"string"},"limit%d":{"type":"integer"}},"required":["path"]}`, i)})
			}
			h := processortest.NewHistory("acme", "start")
			h.Events()[0].Tools = tools
			c := guard.Chain(guard.DefaultPolicy())
			var out processors.Out
			b.ReportAllocs()
			b.ResetTimer()
			done := processortest.ReportCPU(b)
			for range b.N {
				c.Apply(c.NewRun(), &h.Events()[0], &out)
			}
			done()
		})
	}
}

// TestSnapshotAllocatesItsBytesOnly: with every guard of the default
// policy, and of every preset, writing a run's snapshot allocates its
// buffer and nothing per field: every guard's state has a plan of
// internal/pack, and none falls back to msgpack's reflection, whose
// omitempty check allocated about 230 times a snapshot.
func TestSnapshotAllocatesItsBytesOnly(t *testing.T) {
	eachPreset(t, func(t *testing.T, p guard.Policy) {
		c, r := guard.Chain(p), busyRun(p)
		var size int
		allocs := testing.AllocsPerRun(50, func() {
			snap, err := c.Encode(r)
			if err != nil {
				t.Fatal(err)
			}
			size = len(snap)
		})
		// The buffer and its header, and a doubling of the buffer per
		// power of two it grows past its first 512 bytes.
		if want := 2 + bits.Len(uint(size/512)); allocs > float64(want) {
			t.Fatalf("%v allocations for a snapshot of %d bytes; want at most %d", allocs, size, want)
		}
	})
}

// busyRun returns a run of c's policy after 40 rounds of a well-behaved
// agent and an edit that fails its test: every guard holds some state.
func busyRun(p guard.Policy) *processors.Run {
	c := guard.Chain(p)
	h := processortest.NewHistory("acme", "busy")
	for _, ev := range roundsOfAgent(40)[1:] {
		h.Add(ev)
	}
	h.Call("edit_file", `{"path":"src/f1.go","old":"a","new":"b"}`)
	h.Result(false, "ok")
	h.Call("bash", `{"command":"go test ./..."}`)
	h.Result(true, "--- FAIL: TestX\nexit status 1")
	evs := h.Events()
	evs[0].Workspace, evs[0].Lease = "/work/busy", 60_000
	r := c.NewRun()
	var out processors.Out
	for i := range evs {
		c.Apply(r, &evs[i], &out)
	}
	return r
}

// BenchmarkSnapshot measures writing the snapshot of a run every guard of
// the default policy holds state in: at a million runs, guard-consumer
// writes about one per event.
func BenchmarkSnapshot(b *testing.B) {
	p := guard.DefaultPolicy()
	c, r := guard.Chain(p), busyRun(p)
	b.ReportAllocs()
	var size int
	for b.Loop() {
		snap, err := c.Encode(r)
		if err != nil {
			b.Fatal(err)
		}
		size = len(snap)
	}
	b.ReportMetric(float64(size), "bytes")
}
