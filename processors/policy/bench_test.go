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
	processortest.Bench(b, c, r, calls)
}

// BenchmarkFileCall measures the policy guard, in a chain, on an allowed
// read_file call with an absolute path: normalisation, scope globs,
// protected globs and test globs.
func BenchmarkFileCall(b *testing.B) { bench(b, "read_file", fileArgs) }

// BenchmarkShellCall measures an allowed bash call: argument scan,
// tokenizer, classifier, write and escape checks.
func BenchmarkShellCall(b *testing.B) { bench(b, "bash", shellArgs) }

// sizedPolicy returns the test policy with each glob list (protected,
// test_globs, shell.safe_paths, and the code pattern's include and
// exclude) grown to n globs, or kept at its own length if that is more.
// The added globs (policy.SizedGlobs) come first and match none of the
// benchmarks' paths, so a matcher that tries the globs in turn tries them
// all.
func sizedPolicy(n int) policy.Policy {
	grow := func(own []string) []string {
		return append(policy.SizedGlobs(max(0, n-len(own))), own...)
	}
	p := testPolicy()
	p.Protected = grow(p.Protected)
	p.TestGlobs = grow(p.TestGlobs)
	p.Shell.SafePaths = grow(p.Shell.SafePaths)
	code := p.Patterns["code"]
	code.PathScope.Include = grow(code.PathScope.Include)
	code.PathScope.Exclude = grow(code.PathScope.Exclude)
	p.Patterns["code"] = code
	return p
}

// BenchmarkPolicySize measures an allowed edit_file call, which every
// glob list but the shell's safe paths decides, against policies of 8, 64
// and 1,024 globs per list: the cost must not grow with the globs.
func BenchmarkPolicySize(b *testing.B) {
	for _, n := range []int{8, 64, 1024} {
		b.Run(fmt.Sprintf("globs=%d", n), func(b *testing.B) {
			p := sizedPolicy(n)
			if err := p.Validate(); err != nil {
				b.Fatal(err)
			}
			c := processors.NewChain(policy.New(p))
			h := newRun("bench", ws, "code")
			for i := range 1024 {
				h.Call("edit_file", fmt.Sprintf(`{"path":"src/pkg%d/file%d.go","old_str":"a%d","new_str":"b"}`, i%17, i%5, i))
			}
			evs := h.Events()
			r := c.NewRun()
			var out processors.Out
			c.Apply(r, &evs[0], &out)
			calls := evs[1:]
			c.Apply(r, &calls[0], &out)
			if v := out.Verdict(); v == nil || v.Kind != event.Allow || len(out.Decisions) != 1 {
				b.Fatalf("the call draws %s, want a plain allow", processortest.String(&out.Decisions[0]))
			}
			processortest.Bench(b, c, r, calls)
		})
	}
}
