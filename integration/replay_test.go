package integration

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
)

// fleet runs a few scripted agents concurrently: one well-behaved, one
// looping, one alternating, one whose tool keeps failing.
func fleet(t *testing.T, c *client.Client, prefix string) {
	t.Helper()
	ctx := context.Background()
	type script func(i int) (tool, args string, fails bool)
	scripts := map[string]script{
		"careful": func(i int) (string, string, bool) {
			return []string{"list_dir", "read_file", "edit_file", "run_tests"}[i%4], fmt.Sprintf(`{"n":%d}`, i), false
		},
		"looper":   func(int) (string, string, bool) { return "read_file", `{"path":"a"}`, false },
		"pingpong": func(i int) (string, string, bool) { return []string{"open", "close"}[i%2], `{}`, false },
		"flaky":    func(i int) (string, string, bool) { return "build", fmt.Sprintf(`{"try":%d}`, i), true },
	}
	var wg sync.WaitGroup
	for name, next := range scripts {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r, err := c.Start(ctx, prefix+name, client.RunSpec{Agent: name})
			if err != nil {
				t.Error(err)
				return
			}
			defer r.Close()
			for i := range 9 {
				tool, args, fails := next(i)
				if err := r.Step(ctx, client.Step{Number: int64(i)}); err != nil {
					t.Error(err)
					return
				}
				v, err := r.Call(ctx, client.Call{Tool: tool, Args: args})
				if err != nil {
					t.Error(err)
					return
				}
				if v.Kind == event.Stop {
					return
				}
				if err := r.Result(ctx, client.Result{Call: v.Call, Err: fails, Out: "out"}); err != nil {
					t.Error(err)
					return
				}
			}
			if err := r.End(ctx, event.StatusCompleted); err != nil {
				t.Error(err)
			}
		}()
	}
	// Budget, pressure and lease at work: a wide round that is deferred
	// and released, steps under growing context pressure, a leased run
	// that ends in time and one whose lease runs out.
	wg.Add(3)
	go func() {
		defer wg.Done()
		r, err := c.Start(ctx, prefix+"wide", client.RunSpec{Agent: "wide"})
		if err != nil {
			t.Error(err)
			return
		}
		defer r.Close()
		var vs []client.Verdict
		for i := range 11 {
			v, err := r.Call(ctx, client.Call{Tool: "fetch", Args: fmt.Sprintf(`{"page":%d}`, i)})
			if err != nil {
				t.Error(err)
				return
			}
			vs = append(vs, v)
		}
		for i, v := range vs {
			if v.Deferred() {
				if v, err = r.Await(ctx, v); err != nil {
					t.Error(err)
					return
				}
			}
			if err := r.Result(ctx, client.Result{Call: v.Call, Out: fmt.Sprint(i)}); err != nil {
				t.Error(err)
				return
			}
		}
		_ = r.End(ctx, event.StatusCompleted)
	}()
	go func() {
		defer wg.Done()
		r, err := c.Start(ctx, prefix+"pressured", client.RunSpec{Agent: "chatty"})
		if err != nil {
			t.Error(err)
			return
		}
		defer r.Close()
		for i, used := range []int64{50, 72, 80, 90, 40, 96, 99} {
			if err := r.Step(ctx, client.Step{Number: int64(i), Turn: 1, Context: used * 1000, Window: 100000, TokensIn: 900}); err != nil {
				t.Error(err)
				return
			}
		}
		_ = r.End(ctx, event.StatusCompleted)
	}()
	go func() {
		defer wg.Done()
		for _, name := range []string{"leased", "expired"} {
			r, err := c.Start(ctx, prefix+name, client.RunSpec{Lease: time.Second, ManualHeartbeat: true})
			if err != nil {
				t.Error(err)
				return
			}
			for range 2 {
				_ = r.Heartbeat(ctx)
			}
			if name == "leased" {
				_ = r.End(ctx, event.StatusCompleted)
			} else {
				<-r.Done()
			}
			r.Close()
		}
	}()
	wg.Wait()
}

// TestReplayIsByteIdentical re-processes the recorded event stream with a
// fresh consumer on fresh state and compares the control streams byte for
// byte. With one partition the whole stream must be identical; with
// several, each run's decisions must be, since runs in different
// partitions interleave in whatever order their consumers happened to run.
func TestReplayIsByteIdentical(t *testing.T) {
	for _, partitions := range []int{1, 4} {
		t.Run(fmt.Sprintf("partitions=%d", partitions), func(t *testing.T) {
			s := newSystem(t, partitions)
			stop := s.startGuard(guard.DefaultPolicy())
			fleet(t, s.client("acme"), "")
			s.settle()
			original := natstest.Control(t, s.js)
			if len(original) < 30 {
				t.Fatalf("only %d decisions recorded; the fleet should draw more", len(original))
			}
			seen := map[string]bool{}
			for _, rec := range original {
				var d event.Decision
				_ = event.DecodeDecision(rec.Data, &d)
				seen[d.Kind.String()+":"+string(d.Reason)] = true
			}
			for _, want := range []string{"advise:", "defer:", "pressure:", "stop:LOOP_DETECTED", "stop:TOO_MANY_MISTAKES", "stop:LEASE_EXPIRED"} {
				if !seen[want] {
					t.Errorf("the recording has no %s decision; the replay would not test it", want)
				}
			}
			stop()

			replayed := s.reference()
			if partitions == 1 {
				for i := range original {
					if i >= len(replayed) || !original[i].Equal(replayed[i]) {
						t.Fatalf("decision %d differs:\noriginal %s\nreplayed %v", i, original[i], replayed[min(i, len(replayed)-1)])
					}
				}
			}
			t.Log(natstest.SameDecisions(t, replayed, original))
		})
	}
}

// TestRedeliveryHasNoEffect makes the server deliver every event again to a
// consumer whose run state already reflects them: nothing may change.
func TestRedeliveryHasNoEffect(t *testing.T) {
	s := newSystem(t, 2)
	stop := s.startGuard(guard.DefaultPolicy())
	fleet(t, s.client("acme"), "")
	s.settle()
	before := natstest.Control(t, s.js)
	stop()

	ctx := context.Background()
	for p := range 2 {
		if err := s.js.DeleteConsumer(ctx, streams.EventStream, streams.ConsumerName(p)); err != nil {
			t.Fatal(err)
		}
	}
	s.startGuard(guard.DefaultPolicy()) // new consumers start from the first event
	s.settle()
	after := natstest.Control(t, s.js)
	if len(after) != len(before) {
		t.Fatalf("redelivery changed the control stream: %d decisions before, %d after", len(before), len(after))
	}
	if dlq := s.all(streams.DeadLetterStream); len(dlq) != 0 {
		t.Fatalf("redelivery produced %d dead letters, first: %s %s", len(dlq), dlq[0].Subject, dlq[0].Header.Get(streams.HeaderError))
	}
}
