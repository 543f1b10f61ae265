package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/streams"
	"github.com/vmihailenco/msgpack/v5"
)

// TestRoundWithRefusedCallsSettles: a round of three calls without a wait,
// one refused by the schema guard and one whose event goes to the dead
// letters, settles once the one allowed call's result is in, the other two
// listed as refused. Before the fix it never settled.
func TestRoundWithRefusedCallsSettles(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "refused", client.RunSpec{
		Tools: []event.Schema{{Name: "read_file", Schema: `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`}},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if err := r.Round(ctx, []string{"c1", "c2", "c3"}, 0); err != nil {
		t.Fatal(err)
	}
	if v, err := r.Call(ctx, client.Call{ID: "c1", Tool: "read_file", Args: `{"path":"a.go"}`}); err != nil || !v.Allowed() {
		t.Fatal(v, err)
	}
	// c2's event breaks the contract (no tool name): the runner dead-letters
	// and rejects it.
	bad, err := msgpack.Marshal(map[string]any{"v": 1, "k": 4, "tn": "acme", "run": "refused", "seq": 900, "ts": time.Now().UnixMilli(), "call": "c2"})
	if err != nil {
		t.Fatal(err)
	}
	subject, _ := streams.EventSubject("acme", "refused", event.KindCall)
	s.publishRaw(subject, bad)
	if v, err := r.Call(ctx, client.Call{ID: "c3", Tool: "reed_file", Args: `{"path":"b.go"}`}); err != nil || v.Kind != event.Reject {
		t.Fatalf("c3: %v %v; want a reject", v, err)
	}
	if err := r.Result(ctx, client.Result{Call: "c1", Out: "package a"}); err != nil {
		t.Fatal(err)
	}
	sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	d, err := r.Settled(sctx, "c1")
	if err != nil {
		t.Fatalf("the round did not settle: %v", err)
	}
	t.Logf("settled: calls %v missing %v refused %v: %s", d.Calls, d.Missing, d.Refused, d.Msg)
	if fmt.Sprint(d.Calls, d.Missing, d.Refused) != "[c1 c2 c3] [] [c2 c3]" {
		t.Errorf("settled %v missing %v refused %v; want [c1 c2 c3], none missing, c2 and c3 refused", d.Calls, d.Missing, d.Refused)
	}
}
