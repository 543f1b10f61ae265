package integration

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/guardstream/guardstream/agentapi"
	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
)

// TestAgentAPIDecisions: an agent reads its run's decisions back from the
// agent API in stream order, page by page after a sequence, and a tenant
// asking for a run id of another tenant gets nothing of it.
func TestAgentAPIDecisions(t *testing.T) {
	s := newSystem(t, 2)
	s.startGuard(guard.DefaultPolicy())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "replayed", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var calls []string
	for range 3 {
		v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"a.go"}`})
		if err != nil || !v.Allowed() {
			t.Fatal(v.Kind, err)
		}
		calls = append(calls, v.Call)
		if err := r.Result(ctx, client.Result{Call: v.Call, Out: "package a\n"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Output(ctx, v.Call); err != nil {
			t.Fatal(err)
		}
	}
	// A decision reaches the run's subscription as the stream takes it in,
	// which can be before it is stored; the API serves what is stored. The
	// last decision of the flow so far is the third result's output.
	var all agentapi.DecisionsReply
	var last uint64
	natstest.Eventually(t, 5*time.Second, func() error {
		var err error
		if all, err = agentapi.GetDecisions(ctx, s.nc, "acme", agentapi.DecisionsRequest{Run: "replayed"}); err != nil {
			return err
		}
		var verdicts, outputs []string
		last = 0
		for _, st := range all.Decisions {
			var d event.Decision
			if err := event.DecodeDecision(st.Data, &d); err != nil || d.Run != "replayed" || st.Seq <= last || st.MsgID == "" {
				t.Fatalf("stored decision %+v: %v", st, err)
			}
			last = st.Seq
			switch d.Kind {
			case event.Allow:
				verdicts = append(verdicts, d.Call)
			case event.Output:
				outputs = append(outputs, d.Call)
			}
		}
		if !slices.Equal(verdicts, calls) || !slices.Equal(outputs, calls) || all.More {
			return fmt.Errorf("allows %v, outputs %v (more %v); want both for %v", verdicts, outputs, all.More, calls)
		}
		return nil
	})
	rest, err := agentapi.GetDecisions(ctx, s.nc, "acme", agentapi.DecisionsRequest{Run: "replayed", After: all.Decisions[1].Seq})
	if err != nil || len(rest.Decisions) != len(all.Decisions)-2 || rest.Decisions[0].Seq != all.Decisions[2].Seq {
		t.Fatalf("after seq %d: %d decisions, %v; want %d", all.Decisions[1].Seq, len(rest.Decisions), err, len(all.Decisions)-2)
	}
	time.Sleep(100 * time.Millisecond) // the decisions so far are older than at
	at := time.Now().UnixMilli()
	v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"b.go"}`})
	if err != nil || !v.Allowed() {
		t.Fatal(v.Kind, err)
	}
	natstest.Eventually(t, 5*time.Second, func() error {
		since, err := agentapi.GetDecisions(ctx, s.nc, "acme", agentapi.DecisionsRequest{Run: "replayed", Since: at})
		if err != nil || len(since.Decisions) == 0 || since.Decisions[0].Seq <= last || since.Now < at {
			return fmt.Errorf("since %d: %d decisions (now %d), %v; want the decisions after seq %d", at, len(since.Decisions), since.Now, err, last)
		}
		return nil
	})
	other, err := agentapi.GetDecisions(ctx, s.nc, "other", agentapi.DecisionsRequest{Run: "replayed"})
	if err != nil || len(other.Decisions) != 0 {
		t.Fatalf("another tenant asking for the run: %d decisions, %v", len(other.Decisions), err)
	}
	if _, err := agentapi.GetDecisions(ctx, s.nc, "acme", agentapi.DecisionsRequest{Run: "a.b"}); err == nil {
		t.Error("a malformed run id was served")
	}
	t.Logf("%d decisions of the run, %d after seq %d; another tenant: none", len(all.Decisions), len(rest.Decisions), all.Decisions[1].Seq)
}
