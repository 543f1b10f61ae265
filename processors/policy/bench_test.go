package policy_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/policy"
	"github.com/guardstream/guardstream/processors/processortest"
)

// steady returns a chain of the policy guard and the events of a run, past
// its start, that keeps making calls of tool with args(i) and getting
// results.
func steady(tool string, args func(i int) string) (*processors.Chain, *processors.Run, []event.Event) {
	c := processors.NewChain(policy.New(testPolicy()))
	h := newRun("bench", ws, "code")
	for i := range 1024 {
		h.Call(tool, args(i)).Result(false, "ok")
	}
	r := c.NewRun()
	var out processors.Out
	evs := h.Events()
	c.Apply(r, &evs[0], &out)
	return c, r, evs[1:]
}

func fileArgs(i int) string {
	return fmt.Sprintf(`{"path":"%s/src/pkg%d/file%d.go","offset":%d,"limit":200}`, ws, i%17, i%5, i)
}

func shellArgs(i int) string {
	return fmt.Sprintf(`{"command":"cd src/pkg%d && go test -run 'Test%d' ./... 2>&1 | tail -n 50"}`, i%17, i)
}

func TestAllowedCallDoesNotAllocate(t *testing.T) {
	c, r, evs := steady("read_file", fileArgs)
	var out processors.Out
	for i := range 40 { // warm up: capacities settle
		c.Apply(r, &evs[i], &out)
	}
	i := 40
	allocs := testing.AllocsPerRun(200, func() {
		c.Apply(r, &evs[i], &out)
		if i%2 == 0 && (len(out.Decisions) != 1 || out.Decisions[0].Kind != event.Allow) {
			t.Fatalf("event %d: %s, want a plain allow", i, processortest.String(&out.Decisions[0]))
		}
		i++
	})
	if allocs != 0 {
		t.Errorf("applying a plain allowed file call or its result allocates %v times", allocs)
	}
}

func TestShellCallAllocations(t *testing.T) {
	c, r, evs := steady("bash", shellArgs)
	var out processors.Out
	for i := range 40 {
		c.Apply(r, &evs[i], &out)
	}
	i := 40
	allocs := testing.AllocsPerRun(200, func() {
		c.Apply(r, &evs[i], &out)
		i++
	})
	t.Logf("an allowed shell call and its result: %.1f allocations per event", allocs)
	if allocs > 40 {
		t.Errorf("an allowed shell call allocates %v times per event; the classifier has grown expensive", allocs)
	}
}

func bench(b *testing.B, tool string, args func(int) string) {
	c, r, evs := steady(tool, args)
	calls := make([]event.Event, 0, len(evs)/2)
	for _, ev := range evs {
		if ev.Kind == event.KindCall {
			calls = append(calls, ev)
		}
	}
	var out processors.Out
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		ev := &calls[i%len(calls)]
		ev.Seq = int64(i + 2) // keep sequences rising past the history
		c.Apply(r, ev, &out)
	}
}

// BenchmarkFileCall measures the policy guard, in a chain, on an allowed
// read_file call with an absolute path: normalisation, scope globs,
// protected globs and test globs.
func BenchmarkFileCall(b *testing.B) { bench(b, "read_file", fileArgs) }

// BenchmarkShellCall measures an allowed bash call: argument scan,
// tokenizer, classifier, write and escape checks.
func BenchmarkShellCall(b *testing.B) { bench(b, "bash", shellArgs) }
