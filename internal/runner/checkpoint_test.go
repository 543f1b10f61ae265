package runner_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/vmihailenco/msgpack/v5"
)

// tally is a guard with a bug: it counts a run's calls, reports the count
// on each, and cannot write its state once the run called the tool
// unsaveable.
type tally struct{}

type tallyState struct {
	calls  int
	broken bool
}

func (s *tallyState) EncodeMsgpack(enc *msgpack.Encoder) error {
	if s.broken {
		return errors.New("tally: cannot write this state")
	}
	return enc.EncodeInt(int64(s.calls))
}

func (s *tallyState) DecodeMsgpack(dec *msgpack.Decoder) (err error) {
	s.calls, err = dec.DecodeInt()
	return err
}

func (tally) Name() string               { return "tally" }
func (tally) NewState() processors.State { return &tallyState{} }
func (tally) Apply(st processors.State, ev *event.Event, out *processors.Out) {
	if ev.Kind != event.KindCall {
		return
	}
	s := st.(*tallyState)
	s.calls++
	s.broken = s.broken || ev.Tool == "unsaveable"
	out.Emit(event.Pressure, fmt.Sprintf("call %d", s.calls))
}

// TestUnwritableSnapshotHoldsTheCheckpoint: a run whose snapshot cannot be
// written keeps the checkpoint where it was, so the next owner replays
// the run's events instead of starting it afresh, and decides as an
// uninterrupted runner does.
func TestUnwritableSnapshotHoldsTheCheckpoint(t *testing.T) {
	nc, js := onePartition(t)
	chain := processors.NewChain(append(guard.Chain(guard.DefaultPolicy()).Processors(), tally{})...)
	r := processortest.NewHistory("acme", "fragile")
	r.Call("read_file", `{"path":"a.go"}`).Result(false, "x").Call("unsaveable", `{}`)
	o := processortest.NewHistory("acme", "other")
	o.Call("read_file", `{"path":"a.go"}`)
	first := append(r.Events(), o.Events()...)
	r.Call("read_file", `{"path":"b.go"}`)
	parts := [][]event.Event{first, r.Events()[len(r.Events())-1:]}

	// Each part goes to a runner of its own, which hands the partition
	// over, with a checkpoint, when it stops.
	run := func(parts ...[]event.Event) []natstest.Record {
		for _, part := range parts {
			stop := startChain(t, nc, chain, 1)
			for _, ev := range part {
				publish(t, js, ev)
			}
			natstest.Settle(t, js, 1, 15*time.Second)
			stop()
		}
		return natstest.Control(t, js)
	}
	got := run(parts...)
	natstest.Reset(t, js, oneMemoryPartition())
	want := run(nil)
	t.Log(natstest.SameDecisions(t, got, want))
}

// oneMemoryPartition is the configuration of onePartition's streams.
func oneMemoryPartition() streams.Config {
	sc := streams.DefaultConfig()
	sc.Partitions, sc.Memory = 1, true
	return sc
}
