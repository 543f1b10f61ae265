package loop_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/loop"
	"github.com/guardstream/guardstream/processors/processortest"
)

// BenchmarkChainCall measures the loop guard, in a chain, on the common
// case: a call with fresh arguments that is allowed, then its result. (The
// tools have no fan-out budget, which a replay without end would spend.)
func BenchmarkChainCall(b *testing.B) {
	c := processors.NewChain(loop.New(loop.DefaultPolicy()))
	h := processortest.NewHistory("acme", "bench")
	for i := range 1024 {
		h.Call([]string{"view_file", "grep", "edit_file"}[i%3], fmt.Sprintf(`{"path":"src/pkg%d/file.go","line":%d}`, i%17, i)).Result(false, "ok")
	}
	evs := h.Events()[1:]
	var out processors.Out
	b.ReportAllocs()
	b.ResetTimer()
	r := c.NewRun()
	for i := 0; i < b.N; i++ {
		ev := &evs[i%len(evs)]
		ev.Seq = int64(i + 1) // keep sequences rising past the history
		c.Apply(r, ev, &out)
	}
}

// BenchmarkSignature measures the canonical call signature alone.
func BenchmarkSignature(b *testing.B) {
	args := `{"path": "src/main.go", "lines": [1, 2, 3], "opts": {"recursive": true, "pattern": "fo\u006f"}}`
	b.SetBytes(int64(len(args)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		loop.Signature("read_file", args, "src/main.go")
	}
}
