package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
)

// TestLoopingAgentBesideAWellBehavedOne runs two agents through the client
// at the same time: the looper must be advised at its 3rd identical call
// and stopped with LOOP_DETECTED at its 5th; the other must see only
// allows.
func TestLoopingAgentBesideAWellBehavedOne(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	c := s.client("acme")
	ctx := context.Background()

	var wg sync.WaitGroup
	var looperVerdicts, goodVerdicts []client.Verdict
	var looperAdvice []event.Decision
	var looperRun *client.Run
	wg.Add(2)
	go func() {
		defer wg.Done()
		r, err := c.Start(ctx, "looper", client.RunSpec{Agent: "coder"})
		if err != nil {
			t.Error(err)
			return
		}
		defer r.Close()
		looperRun = r
		for i := 1; i <= 5; i++ {
			v, err := r.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"main.go"}`})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			looperVerdicts = append(looperVerdicts, v)
			// Advice for a call is published before its verdict, on the
			// same subscription, so it has arrived by now.
			for len(r.Advice()) > 0 {
				a := <-r.Advice()
				looperAdvice = append(looperAdvice, a)
				if a.Call != fmt.Sprintf("c%d", i) {
					t.Errorf("advice for %s arrived with call %d's verdict", a.Call, i)
				}
			}
			if !v.Allowed() {
				return
			}
			if err := r.Result(ctx, client.Result{Call: v.Call, Out: "package main"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		r, err := c.Start(ctx, "careful", client.RunSpec{Agent: "coder"})
		if err != nil {
			t.Error(err)
			return
		}
		defer r.Close()
		for i := range 8 {
			tool := []string{"list_dir", "read_file", "edit_file", "run_tests"}[i%4]
			v, err := r.Call(ctx, client.Call{Tool: tool, Args: fmt.Sprintf(`{"path":"file%d.go"}`, i)})
			if err != nil {
				t.Errorf("call %d: %v", i, err)
				return
			}
			goodVerdicts = append(goodVerdicts, v)
			if err := r.Result(ctx, client.Result{Call: v.Call, Out: "package x"}); err != nil {
				t.Error(err)
			}
		}
		if n := len(r.Advice()); n != 0 {
			t.Errorf("the well-behaved agent received %d advice", n)
		}
		if err := r.End(ctx, event.StatusCompleted); err != nil {
			t.Error(err)
		}
	}()
	wg.Wait()

	want := []event.DecisionKind{event.Allow, event.Allow, event.Allow, event.Allow, event.Stop}
	if len(looperVerdicts) != len(want) {
		t.Fatalf("looper got %d verdicts, want %d", len(looperVerdicts), len(want))
	}
	for i, v := range looperVerdicts {
		if v.Kind != want[i] || v.Synthetic {
			t.Errorf("looper call %d: verdict %s (synthetic %t), want %s", i+1, v.Kind, v.Synthetic, want[i])
		}
	}
	if stop := looperVerdicts[4]; stop.Reason != event.ReasonLoopDetected || stop.Outcome != event.StatusFailed || stop.Guard != "loop" {
		t.Errorf("looper's 5th call: %+v, want a stop LOOP_DETECTED by the loop guard", stop.Decision)
	}
	if len(looperAdvice) != 1 || looperAdvice[0].Call != "c3" || looperAdvice[0].Steer == nil || looperAdvice[0].Steer.Kind != event.SteerAvoidRepeat {
		t.Errorf("looper advice %+v, want one avoid_repeat with call c3", looperAdvice)
	}
	select {
	case <-looperRun.Done():
	default:
		t.Error("the looper's run is not marked stopped")
	}
	if len(goodVerdicts) != 8 {
		t.Fatalf("well-behaved agent got %d verdicts, want 8", len(goodVerdicts))
	}
	for i, v := range goodVerdicts {
		if v.Kind != event.Allow {
			t.Errorf("well-behaved call %d: %s, want allow", i+1, v.Kind)
		}
	}
}
