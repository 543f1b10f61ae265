package schema_test

import (
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/processors/schema"
)

// callsOf returns a run that declares the test tools followed by n calls
// of read_file with args made by mk.
func callsOf(n int, mk func(i int) string) []event.Event {
	h := declared("bench")
	for i := range n {
		h.Call("read_file", mk(i))
	}
	return h.Events()
}

// allocsPerCall applies evs[0] (the run start) and then measures applying
// the calls.
func allocsPerCall(p schema.Policy, evs []event.Event) float64 {
	c := processors.NewChain(schema.New(p))
	r := c.NewRun()
	var out processors.Out
	for i := range min(len(evs), 20) { // warm up: capacities and the memo settle
		c.Apply(r, &evs[i], &out)
	}
	i := 20
	return testing.AllocsPerRun(100, func() {
		c.Apply(r, &evs[i], &out)
		i++
	})
}

func TestAllocations(t *testing.T) {
	t.Run("no registry", func(t *testing.T) {
		h := processortest.NewHistory("acme", "alloc")
		for i := range 200 {
			h.Call("read_file", fmt.Sprintf(`{"path":"f%d.go"}`, i))
		}
		if n := allocsPerCall(schema.DefaultPolicy(), h.Events()); n != 0 {
			t.Errorf("a call of a run with nothing registered allocates %v times", n)
		}
	})
	t.Run("valid call", func(t *testing.T) {
		evs := callsOf(200, func(i int) string { return fmt.Sprintf(`{"path":"src/f%d.go","depth":%d,"recursive":true}`, i, i%4) })
		n := allocsPerCall(schema.DefaultPolicy(), evs)
		t.Logf("a valid call with 3 arguments allocates %v times", n)
		if n > 45 {
			t.Errorf("a valid call allocates %v times; it was 30", n)
		}
	})
}

// TestConcurrentRuns applies runs from several goroutines through one
// Guard, as guard-consumer's partitions do; with -race it checks the memo.
func TestConcurrentRuns(t *testing.T) {
	g := schema.New(schema.DefaultPolicy())
	c := processors.NewChain(g)
	want := processortest.Log(c, histories()["repair-then-name"].Events())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				h := declared(fmt.Sprintf("w%d-%d", w, i))
				h.Call("read_file", repairable).Call("read_file", invalid)
				processortest.Log(c, h.Events())
				if got := processortest.Log(c, histories()["repair-then-name"].Events()); got != want {
					t.Errorf("a run went differently under concurrency:\n%s", got)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func benchCalls(b *testing.B, p schema.Policy, evs []event.Event) {
	c := processors.NewChain(schema.New(p))
	r := c.NewRun()
	var out processors.Out
	c.Apply(r, &evs[0], &out)
	processortest.Bench(b, c, r, evs[1:])
}

// BenchmarkValidCall measures a call whose arguments fit the schema.
func BenchmarkValidCall(b *testing.B) {
	benchCalls(b, schema.DefaultPolicy(), callsOf(64, func(i int) string {
		return fmt.Sprintf(`{"path":"src/pkg%d/file.go","depth":%d,"recursive":true}`, i, i%4)
	}))
}

// BenchmarkRepairedCall measures a call repaired by a rename and a
// coercion.
func BenchmarkRepairedCall(b *testing.B) {
	benchCalls(b, schema.DefaultPolicy(), callsOf(64, func(i int) string {
		return fmt.Sprintf(`{"file_path":"src/pkg%d/file.go","depth":"%d"}`, i, i%4)
	}))
}

// BenchmarkRejectedCall measures a call with an unrepairable argument;
// max_attempts is off so the run goes on.
func BenchmarkRejectedCall(b *testing.B) {
	p := schema.DefaultPolicy()
	p.MaxAttempts = 0
	benchCalls(b, p, callsOf(64, func(i int) string {
		return fmt.Sprintf(`{"path":"src/pkg%d/file.go","depth":"deep%d"}`, i, i)
	}))
}

// BenchmarkNoRegistry measures a call of a run nothing is registered for.
func BenchmarkNoRegistry(b *testing.B) {
	h := processortest.NewHistory("acme", "bench")
	for i := range 64 {
		h.Call("read_file", fmt.Sprintf(`{"path":"src/pkg%d/file.go"}`, i))
	}
	benchCalls(b, schema.DefaultPolicy(), h.Events())
}

// manyTools returns n tool schemas: read_file's and n-1 others, each
// with its own properties, as a policy or a run would register them.
func manyTools(n int) []event.Schema {
	ts := []event.Schema{{Name: "read_file", Schema: readFile}}
	for i := 1; i < n; i++ {
		ts = append(ts, event.Schema{Name: fmt.Sprintf("tool_%04d", i), Schema: fmt.Sprintf(
			`{"type":"object","properties":{"arg%d":{"type":"string"},"n%d":{"type":"integer","minimum":%d},"flag":{"type":"boolean"}},"required":["arg%d"],"additionalProperties":false}`,
			i, i, i%7, i)})
	}
	return ts
}

// BenchmarkRegisteredTools measures a valid call of read_file with n tools
// registered, by the policy or declared by the run (at most
// event.MaxDeclared): the cost must not grow with n.
func BenchmarkRegisteredTools(b *testing.B) {
	args := func(i int) string {
		return fmt.Sprintf(`{"path":"src/pkg%d/file.go","depth":%d,"recursive":true}`, i, i%4)
	}
	for _, n := range []int{1, 10, 100, 1000} {
		b.Run(fmt.Sprintf("policy/tools=%d", n), func(b *testing.B) {
			p := schema.DefaultPolicy()
			p.Default.Tools = map[string]json.RawMessage{}
			for _, t := range manyTools(n) {
				p.Default.Tools[t.Name] = json.RawMessage(t.Schema)
			}
			h := start("bench", "coder", nil, nil)
			for i := range 64 {
				h.Call("read_file", args(i))
			}
			benchCalls(b, p, h.Events())
		})
	}
	for _, n := range []int{1, 10, 100, event.MaxDeclared} {
		b.Run(fmt.Sprintf("declared/tools=%d", n), func(b *testing.B) {
			h := start("bench", "coder", manyTools(n), nil)
			for i := range 64 {
				h.Call("read_file", args(i))
			}
			benchCalls(b, schema.DefaultPolicy(), h.Events())
		})
	}
}
