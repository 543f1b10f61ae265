package integration

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestFloodMeetsTheStreamCaps floods AGENT_EVENTS past its caps while a
// run in the same (single) partition makes calls. First one run publishes
// ten times its per-subject cap of calls as fast as it can: its own
// oldest go, nothing of the other run's. Then twenty runs publish 16 KiB
// events, eight times the stream's cap, in bursts of half the cap that
// guard-consumer keeps up with: the oldest events go, which it has
// applied. (A backlog larger than the cap would lose events it has not
// applied; decision 23.) Neither flood gets a publish refused, and the
// other run gets every verdict all along. An event over the size cap is
// refused to its publisher by the server.
func TestFloodMeetsTheStreamCaps(t *testing.T) {
	const perSubject, streamCap = 100, 4 << 20
	s := newSystemWith(t, func(c *streams.Config) {
		c.Partitions, c.MaxMsgsPerSubject, c.EventMaxBytes = 1, perSubject, streamCap
	})
	p := guard.DefaultPolicy()
	p.Budget.MaxSteps.Max, p.Budget.MaxToolCallsPerStep.Max, p.Budget.MaxToolRoundsPerTurn.Max = 0, 0, 0 // one long run
	for i := range p.Loop.Rules {
		p.Loop.Rules[i].Disabled = p.Loop.Rules[i].Name == "fan_out"
	}
	s.startGuard(p)
	ctx := context.Background()
	calm, err := s.client("good", client.WithVerdictTimeout(10*time.Second)).Start(ctx, "calm", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer calm.Close()

	// The calm run calls until told to stop, recording each verdict's
	// latency and every call that did not get an allow.
	var (
		mu        sync.Mutex
		latencies []time.Duration
		failures  []string
	)
	calls := func(stop <-chan struct{}) <-chan struct{} {
		done := make(chan struct{})
		go func() {
			defer close(done)
			// An agent's pace, well under its admission limit.
			pace := time.NewTicker(10 * time.Millisecond)
			defer pace.Stop()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				case <-pace.C:
				}
				start := time.Now()
				v, err := calm.Call(ctx, client.Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"src/f%d.go"}`, len(latencies)+i*1000)})
				mu.Lock()
				latencies = append(latencies, time.Since(start))
				if err != nil || v.Kind != event.Allow {
					failures = append(failures, fmt.Sprintf("call %d: %v %s %s, %v", i, v.Kind, v.Reason, v.Msg, err))
				}
				mu.Unlock()
				if err == nil {
					_ = calm.Result(ctx, client.Result{Call: v.Call, Out: "ok"})
				}
				if i%8 == 7 {
					_ = calm.Step(ctx, client.Step{Number: int64(i / 8), Turn: 1})
				}
			}
		}()
		return done
	}
	flood := func(runs, n int, payload []byte) (refused int, last uint64) {
		for i := range n {
			subj, _ := streams.EventSubject("evil", fmt.Sprintf("flood-%d", i%runs), event.KindCall)
			ack, err := s.js.Publish(ctx, subj, payload)
			if err != nil {
				refused++
				continue
			}
			last = ack.Sequence
		}
		return refused, last
	}

	stop := make(chan struct{})
	done := calls(stop)
	start := time.Now()
	refused, _ := flood(1, 10*perSubject, []byte("\xc1 not an event"))
	took := time.Since(start)
	stored := natstest.SubjectCount(t, s.js, streams.EventStream, "agent.*.evil.flood-0.call")
	big := make([]byte, 16<<10)
	start = time.Now()
	refusedB := 0
	for range 16 {
		n, last := flood(20, streamCap/2/len(big), big)
		refusedB += n
		caughtUp(t, s, last)
	}
	tookB := time.Since(start)
	close(stop)
	<-done
	t.Logf("one run, %d calls in %v: %d refused, %d kept", 10*perSubject, took.Round(time.Millisecond), refused, stored)
	t.Logf("20 runs, %d MiB in %v: %d refused", 8*streamCap>>20, tookB.Round(time.Millisecond), refusedB)
	if refused+refusedB > 0 {
		t.Errorf("%d flood events refused; a full stream or subject drops its oldest instead", refused+refusedB)
	}
	if stored != perSubject {
		t.Errorf("the flooded run keeps %d calls, want its newest %d", stored, perSubject)
	}
	info, err := streamInfo(ctx, s.js, streams.EventStream)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Bytes > streamCap {
		t.Errorf("AGENT_EVENTS holds %d bytes, over its cap of %d", info.State.Bytes, streamCap)
	}
	mu.Lock()
	sorted := slices.Clone(latencies)
	slices.Sort(sorted)
	if len(sorted) == 0 {
		t.Fatal("the calm run made no call")
	}
	t.Logf("the calm run: %d calls during the floods, verdict latency p50 %v, p99 %v, max %v; AGENT_EVENTS %d events, %d bytes",
		len(sorted), sorted[len(sorted)/2].Round(time.Microsecond), sorted[len(sorted)*99/100].Round(time.Microsecond),
		sorted[len(sorted)-1].Round(time.Microsecond), info.State.Msgs, info.State.Bytes)
	if len(failures) > 0 {
		t.Errorf("%d of the calm run's calls did not get an allow: %v", len(failures), failures[:min(3, len(failures))])
	}
	mu.Unlock()

	// Oversize: the server refuses it to the publisher, who learns why at
	// once, and the guard goes on.
	start = time.Now()
	_, err = calm.Call(ctx, client.Call{Tool: "write_file", Args: `{"path":"a","content":"` + strings.Repeat("x", 66<<10) + `"}`})
	var api *jetstream.APIError
	if !errors.As(err, &api) || api.ErrorCode != jetstream.JSErrCodeStreamMessageExceedsMaximum {
		t.Errorf("a call of 66 KiB: %v, want the server's 'message size exceeds maximum allowed'", err)
	} else {
		t.Logf("a call of 66 KiB refused in %v: %v", time.Since(start).Round(time.Millisecond), err)
	}
	if v, err := calm.Call(ctx, client.Call{Tool: "read_file", Args: `{"path":"after.go"}`}); err != nil || v.Kind != event.Allow {
		t.Errorf("a call after the floods: %v, %v; want allow", v.Kind, err)
	}
}

// caughtUp waits until guard-consumer has applied AGENT_EVENTS up to seq.
func caughtUp(t *testing.T, s *system, seq uint64) {
	t.Helper()
	natstest.Eventually(t, 30*time.Second, func() error {
		c, err := s.js.Consumer(context.Background(), streams.EventStream, streams.ConsumerName(0))
		if err != nil {
			return err
		}
		info, err := c.Info(context.Background())
		if err != nil {
			return err
		}
		if info.AckFloor.Stream < seq {
			return fmt.Errorf("applied up to %d, want %d", info.AckFloor.Stream, seq)
		}
		return nil
	})
}
