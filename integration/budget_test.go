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
)

// TestDeferAndRelease: with at most 2 calls in flight, 5 parallel calls
// get 2 allows and 3 defers, and each result releases the next deferred
// call, in order.
func TestDeferAndRelease(t *testing.T) {
	s := newSystem(t, 4)
	p := guard.DefaultPolicy()
	p.Budget.MaxInFlight = 2
	s.startGuard(p)
	ctx := context.Background()
	r, err := s.client("acme", client.WithVerdictTimeout(5*time.Second)).Start(ctx, "wide", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	verdicts := make([]client.Verdict, 5)
	for i := range verdicts {
		if verdicts[i], err = r.Call(ctx, client.Call{Tool: "fetch", Args: fmt.Sprintf(`{"page":%d}`, i)}); err != nil {
			t.Fatal(err)
		}
	}
	var kinds []string
	for _, v := range verdicts {
		kinds = append(kinds, v.Kind.String())
	}
	if fmt.Sprint(kinds) != "[allow allow defer defer defer]" {
		t.Fatalf("verdicts %v, want 2 allows and 3 defers", kinds)
	}

	// released lists, in order, the deferred calls allowed so far.
	released := func() []string {
		var ids []string
		for _, m := range s.all(streams.ControlStream) {
			if d := decode(t, m); d.Kind == event.Allow && d.Guard == "budget" {
				ids = append(ids, d.Call)
			}
		}
		return ids
	}
	running := []string{"c1", "c2"}
	for i, next := range []string{"c3", "c4", "c5"} {
		done := running[0]
		running = running[1:]
		if err := r.Result(ctx, client.Result{Call: done, Out: "page"}); err != nil {
			t.Fatal(err)
		}
		rel, err := r.Await(ctx, verdicts[2+i])
		if err != nil || rel.Kind != event.Allow || rel.Call != next {
			t.Fatalf("after %s's result: release %+v, %v; want an allow for %s", done, rel.Decision, err, next)
		}
		s.settle()
		if got := released(); fmt.Sprint(got) != fmt.Sprint([]string{"c3", "c4", "c5"}[:i+1]) {
			t.Fatalf("after %d results, released %v; want one more per result, in order", i+1, got)
		}
		running = append(running, next)
	}
}
