package client_test

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/processors/loop"
)

// TestReportsMatchTheWireVectors publishes a step with a text digest, two
// turns and a compaction, and checks that each stored event is, envelope
// aside, the test vector of docs/wire.md §3.2 for it, byte for byte.
func TestReportsMatchTheWireVectors(t *testing.T) {
	nc, js := setup(t)
	_, r := startRun(t, nc, "run-42", client.RunSpec{})
	ctx := context.Background()
	for _, err := range []error{
		r.Step(ctx, client.Step{Number: 9, TextDigest: event.Digest([]byte("I will read main.go next."))}),
		r.Turn(ctx, 2),
		r.Turn(ctx, 0),
		r.Compaction(ctx, client.Compaction{Context: 40000, Window: 200000}),
	} {
		if err != nil {
			t.Fatal(err)
		}
	}
	evs := stored(t, js, "run-42")[1:] // after the run start
	vectors := []string{"event/step_digest", "event/turn", "event/turn_next", "event/compaction"}
	if len(evs) != len(vectors) {
		t.Fatalf("%d events stored after the run start, want %d", len(evs), len(vectors))
	}
	for i, name := range vectors {
		want := wireVector(t, name)
		var env event.Event
		if err := event.DecodeEvent(want, &env); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ev := evs[i]
		ev.Seq, ev.TS = env.Seq, env.TS // the envelope is the run's, not the vector's
		if got := event.AppendEvent(nil, &ev); string(got) != string(want) {
			t.Errorf("the client's %s event is %x, want the vector %s: %x", ev.Kind, got, name, want)
		}
	}
	if err := r.Turn(ctx, -1); err == nil {
		t.Error("a negative turn was published")
	}
	if err := r.Compaction(ctx, client.Compaction{Context: -1}); err == nil {
		t.Error("a compaction to a negative context was published")
	}
}

// wireVector returns the msgpack bytes of the named test vector of
// event/testdata/vectors.json.
func wireVector(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("../event/testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct{ Name, Hex string }
	if err := json.Unmarshal(b, &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.Name == name {
			raw, err := hex.DecodeString(v.Hex)
			if err != nil {
				t.Fatal(err)
			}
			return raw
		}
	}
	t.Fatalf("no vector %s", name)
	return nil
}

// TestTurnResetsALoopRule runs, through a real guard-consumer whose
// identical_call rule resets on a new turn, a run that repeats a call
// twice, reports a user turn and repeats it twice more, and a run that
// repeats it three times without a turn: only the second is advised.
func TestTurnResetsALoopRule(t *testing.T) {
	p := guard.DefaultPolicy()
	for i := range p.Loop.Rules {
		if p.Loop.Rules[i].Name == "identical_call" {
			p.Loop.Rules[i].ResetOn = []loop.Trigger{loop.OnTurn, loop.OnResume}
		}
	}
	nc := guarded(t, p)
	ctx := context.Background()
	read := client.Call{Tool: "read_file", Args: `{"path":"a.go"}`}

	// Each step of a script is a call of read, with its result, or a user
	// turn. Advice about a call precedes its verdict (docs/wire.md §4.6),
	// so once a verdict is in, so is every advice about the call.
	advised := func(r *client.Run, script string) []string {
		var got []string
		for _, step := range script {
			if step == 't' {
				if err := r.Turn(ctx, 0); err != nil {
					t.Fatal(err)
				}
				continue
			}
			v, err := r.Call(ctx, read)
			if err != nil || !v.Allowed() {
				t.Fatalf("%s: %+v, %v; want it allowed", v.Call, v, err)
			}
			if err := r.Result(ctx, client.Result{Call: v.Call, Out: "package a"}); err != nil {
				t.Fatal(err)
			}
			for len(r.Advice()) > 0 {
				a := <-r.Advice()
				got = append(got, a.Call+":"+string(a.Steer.Kind))
			}
		}
		return got
	}
	_, withTurn := startRun(t, nc, "with-turn", client.RunSpec{})
	if got := advised(withTurn, "cctcc"); len(got) != 0 {
		t.Errorf("two calls, a turn and two more calls drew %q; the turn resets identical_call", got)
	}
	_, without := startRun(t, nc, "without", client.RunSpec{})
	if got := advised(without, "ccc"); len(got) != 1 || got[0] != "c3:avoid_repeat" {
		t.Errorf("three identical calls drew %q, want [c3:avoid_repeat]", got)
	}
}

// TestMonologueAndCompactionsThroughTheClient has a run say the same thing
// in steps without a tool call between, through a real guard-consumer
// with the default policy: the third step is advised (repeat_message) and
// the fifth stops the run. Another run compacts its context again and
// again: the fifth compaction is advised (compaction_loop), the tenth
// stops it.
func TestMonologueAndCompactionsThroughTheClient(t *testing.T) {
	nc := guarded(t, guard.DefaultPolicy())
	ctx := context.Background()
	said := event.Digest([]byte("I will now fix the bug."))
	for _, tc := range []struct {
		run    string
		report func(r *client.Run, i int) error
		steer  event.SteerKind
		advise int // the report advised
		stop   int // the report that stops the run
		rule   string
	}{
		{"monologue", func(r *client.Run, i int) error {
			return r.Step(ctx, client.Step{Number: int64(i), TextDigest: said})
		}, event.SteerRepeatMessage, 3, 5, "monologue"},
		{"compactions", func(r *client.Run, _ int) error {
			return r.Compaction(ctx, client.Compaction{Context: 40000, Window: 200000})
		}, event.SteerCompactionLoop, 5, 10, "compactions"},
	} {
		t.Run(tc.run, func(t *testing.T) {
			_, r := startRun(t, nc, tc.run, client.RunSpec{})
			for i := 1; i <= tc.stop; i++ {
				if err := tc.report(r, i); err != nil {
					t.Fatal(err)
				}
				if i == tc.advise {
					select {
					case a := <-r.Advice():
						if a.Steer == nil || a.Steer.Kind != tc.steer || a.Rule != tc.rule || a.Seq != int64(i+1) {
							t.Errorf("advice %+v; want %s by rule %s answering report %d (seq %d)", a, tc.steer, tc.rule, i, i+1)
						}
					case <-time.After(10 * time.Second):
						t.Fatalf("report %d drew no advice", i)
					}
				}
			}
			select {
			case <-r.Done():
			case <-time.After(10 * time.Second):
				t.Fatalf("report %d did not stop the run", tc.stop)
			}
			if st := r.Stop(); st.Reason != event.ReasonLoopDetected || st.Rule != tc.rule || st.Seq != int64(tc.stop+1) {
				t.Errorf("stop %+v; want LOOP_DETECTED by rule %s answering report %d", st, tc.rule, tc.stop)
			}
			if n := len(r.Advice()); n != 0 {
				t.Errorf("%d more advice than the one expected", n)
			}
		})
	}
}
