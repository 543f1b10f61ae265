package eval_test

import (
	"bytes"
	"os"
	"testing"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/eval"
	"github.com/guardstream/guardstream/internal/pack"
	"github.com/guardstream/guardstream/internal/trajectory"
	"github.com/guardstream/guardstream/processors"
	"github.com/vmihailenco/msgpack/v5"
)

// TestSnapshotsOfRealRunsAreMsgpacks: after every event of every real run,
// each part of the run's snapshot is byte for byte what msgpack's
// reflection writes (the snapshot is those parts under fixed keys), so
// pack's faster encoding changes no stored byte.
func TestSnapshotsOfRealRunsAreMsgpacks(t *testing.T) {
	f, err := os.Open(devSet(t))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c := guard.Chain(guard.DefaultPolicy())
	var want, got bytes.Buffer
	reflective, packed := msgpack.NewEncoder(&want), msgpack.NewEncoder(&got)
	reflective.UseCompactInts(true)
	packed.UseCompactInts(true)
	same := func(run string, i int, v any) {
		want.Reset()
		got.Reset()
		if err := reflective.Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := pack.Encode(packed, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want.Bytes(), got.Bytes()) {
			t.Fatalf("%s, after event %d, %T:\nmsgpack: %x\npack:    %x", run, i, v, want.Bytes(), got.Bytes())
		}
	}
	var runs, events int
	if err := eval.Read(f, trajectory.DefaultMapping(), nil, func(in eval.Input) error {
		runs++
		r := c.NewRun()
		var out processors.Out
		for i := range in.Events {
			c.Apply(r, &in.Events[i], &out)
			events++
			same(in.Run, i, r)
			for _, part := range r.Parts {
				same(in.Run, i, part)
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d runs, %d events", runs, events)
}
