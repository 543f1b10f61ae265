package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// connectTo connects to url the way an agent should: reconnecting for
// ever, quickly.
func connectTo(t *testing.T, url string) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(-1), nats.ReconnectWait(20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// stored returns the events of run in AGENT_EVENTS, in stream order.
func stored(t *testing.T, js jetstream.JetStream, run string) []event.Event {
	t.Helper()
	var out []event.Event
	for _, m := range natstest.Messages(t, js, streams.EventStream) {
		var ev event.Event
		if event.DecodeEvent(m.Data, &ev) == nil && ev.Run == run {
			out = append(out, ev)
		}
	}
	return out
}

// TestCallSurvivesLostAckAndVerdict loses everything the server sends
// while a call is published: its acknowledgement and its verdict. When the
// connection is cut and comes back, the client sends the call again under
// the same Nats-Msg-Id (the stream keeps one copy) and catches up on the
// verdict from GUARD_CONTROL, within the call's deadline.
func TestCallSurvivesLostAckAndVerdict(t *testing.T) {
	s := natstest.RunServer(t, "")
	guardConn, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	guardPeer(t, guardConn, js, func(ev event.Event) []event.Decision {
		if ev.Kind == event.KindCall {
			return []event.Decision{{Kind: event.Allow, Call: ev.Call}}
		}
		return nil
	})
	p := startProxy(t, s.Addr().String())
	c, r := startRun(t, connectTo(t, p.URL()), "r", client.RunSpec{})
	ctx := context.Background()

	p.setMute(true)
	type answer struct {
		v   client.Verdict
		err error
		at  time.Time
	}
	got := make(chan answer, 1)
	go func() {
		v, err := r.Call(ctx, client.Call{Tool: "ls", Args: `{}`})
		got <- answer{v, err, time.Now()}
	}()
	// The call and its allow are stored; the client heard of neither.
	natstest.Eventually(t, 5*time.Second, func() error {
		for _, m := range natstest.Messages(t, js, streams.ControlStream) {
			var d event.Decision
			if event.DecodeDecision(m.Data, &d) == nil && d.Call == "c1" && d.Kind == event.Allow {
				return nil
			}
		}
		return errors.New("no allow for c1 stored yet")
	})
	select {
	case a := <-got:
		t.Fatalf("the call returned while the server could not be heard: %+v, %v", a.v, a.err)
	default:
	}
	p.setMute(false)
	cutAt := time.Now()
	p.cut()

	var a answer
	select {
	case a = <-got:
	case <-time.After(15 * time.Second):
		t.Fatal("the call did not return after the connection came back")
	}
	st := c.Stats()
	t.Logf("cut the connection with c1 stored and allowed, unheard; c1 returned %s %v after the cut; stats %+v",
		a.v.Kind, a.at.Sub(cutAt).Round(time.Millisecond), st)
	if a.err != nil || a.v.Kind != event.Allow || a.v.Synthetic {
		t.Fatalf("c1: %+v, %v; want the guard's allow", a.v, a.err)
	}
	if st.Republished == 0 || st.CatchUps == 0 || st.Recovered == 0 {
		t.Errorf("stats %+v: want the call republished and its verdict recovered by a catch-up", st)
	}
	calls := 0
	for _, ev := range stored(t, js, "r") {
		if ev.Kind == event.KindCall {
			calls++
		}
	}
	if calls != 1 {
		t.Errorf("AGENT_EVENTS holds %d copies of c1, want 1", calls)
	}
}

// restartable is an embedded server that can be shut down and started
// again on the same port and store directory.
type restartable struct {
	t    *testing.T
	dir  string
	port int
	s    *server.Server
}

func startRestartable(t *testing.T) *restartable {
	t.Helper()
	rs := &restartable{t: t, dir: t.TempDir()}
	rs.start(-1)
	rs.port = rs.s.Addr().(*net.TCPAddr).Port
	t.Cleanup(func() {
		rs.s.Shutdown()
		rs.s.WaitForShutdown()
	})
	return rs
}

func (rs *restartable) start(port int) {
	rs.t.Helper()
	s, err := embedded.Start(embedded.Options{Name: "restartable", Host: "127.0.0.1", Port: port, StoreDir: rs.dir})
	if err != nil {
		rs.t.Fatal(err)
	}
	rs.s = s
}

// restart shuts the server down and starts it again; it returns when the
// old server was gone and when the new one was up.
func (rs *restartable) restart() (goneAt, upAt time.Time) {
	rs.t.Helper()
	rs.s.Shutdown()
	rs.s.WaitForShutdown()
	goneAt = time.Now()
	rs.start(rs.port)
	return goneAt, time.Now()
}

// TestServerRestartWithCallsInFlight restarts the server, on the same port
// and store, while a fleet makes calls against a real guard-consumer
// runner, as when guard-consumer, which embeds the server by default, is
// restarted: it stops, calls keep coming and wait, the server goes and
// comes back, and guard-consumer with it. The agents' network loses what
// the server sent them last (acknowledgements and decisions), and lets
// them back only once the new guard has answered the calls they left
// waiting. Every call still gets exactly one verdict, and no result is
// lost.
func TestServerRestartWithCallsInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("restarts a server; skipped with -short")
	}
	// The tools of agent i take (i+1)·toolTime, so some agents wait for
	// verdicts and others run tools when the server goes away.
	const runs, callsPerRun, toolTime = 8, 40, 5 * time.Millisecond
	rs := startRestartable(t)
	url := rs.s.ClientURL()
	guardConn := connectTo(t, url)
	js, err := jetstream.New(guardConn)
	if err != nil {
		t.Fatal(err)
	}
	cfg := streams.DefaultConfig()
	cfg.Partitions = 4
	natstest.Provision(t, js, &cfg)
	startGuard := func() func() { return startRunner(t, guardConn, cfg.Partitions, guard.DefaultPolicy()) }
	stopGuard := startGuard()
	defer func() { stopGuard() }()
	// drained waits until the guard has consumed every event.
	drained := func() {
		natstest.Eventually(t, 30*time.Second, func() error {
			for p := range cfg.Partitions {
				cons, err := js.Consumer(context.Background(), streams.EventStream, streams.ConsumerName(p))
				if err != nil {
					return err
				}
				info, err := cons.Info(context.Background())
				if err != nil {
					return err
				}
				if info.NumPending > 0 || info.NumAckPending > 0 {
					return fmt.Errorf("partition %d: %d pending, %d unacked", p, info.NumPending, info.NumAckPending)
				}
			}
			return nil
		})
	}

	p := startProxy(t, rs.s.Addr().String())
	agentConn := connectTo(t, p.URL())
	c, err := client.New(agentConn, "acme", client.WithVerdictTimeout(15*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	var (
		verdicts, results atomic.Int64 // returned so far
		waiting           atomic.Int64 // calls waiting for a verdict now
		mu                sync.Mutex
		goneAt, upAt      time.Time // when the old server was gone, and the new one up
		spanned           [2]int    // calls and results whose wait spanned the restart
		failures          []string
		published         = map[string]int{} // results acknowledged, by run
	)
	// across notes an operation (0 a call, 1 a result) in flight while no
	// server ran: it began before the new one was up and ended after the
	// old one was gone.
	across := func(op int, began time.Time) {
		mu.Lock()
		defer mu.Unlock()
		if !upAt.IsZero() && began.Before(upAt) && time.Now().After(goneAt) {
			spanned[op]++
		}
	}
	fail := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, fmt.Sprintf(format, args...))
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			run := "agent-" + strconv.Itoa(i)
			r, err := c.Start(cctx, run, client.RunSpec{Workspace: "/work/app"})
			if err != nil {
				fail("%s: start: %v", run, err)
				return
			}
			defer r.Close()
			for n := range callsPerRun {
				if n%4 == 0 {
					if err := r.Step(cctx, client.Step{Number: int64(n / 4)}); err != nil {
						fail("%s: step: %v", run, err)
						return
					}
				}
				began := time.Now()
				waiting.Add(1)
				v, err := r.Call(cctx, client.Call{Tool: "read_file", Args: fmt.Sprintf(`{"path":"f%d.go"}`, n)})
				waiting.Add(-1)
				across(0, began)
				verdicts.Add(1)
				if err != nil || v.Synthetic || !v.Allowed() {
					fail("%s: call %d: %s synthetic=%t %v", run, n, v.Kind, v.Synthetic, err)
					return
				}
				time.Sleep(time.Duration(i+1) * toolTime) // the tool runs
				began = time.Now()
				err = r.Result(cctx, client.Result{Call: v.Call, Out: "package f"})
				across(1, began)
				if err != nil {
					fail("%s: result of %s: %v", run, v.Call, err)
					return
				}
				results.Add(1)
				mu.Lock()
				published[run]++
				mu.Unlock()
			}
		}()
	}

	natstest.Eventually(t, 30*time.Second, func() error {
		if n := verdicts.Load(); n < runs*callsPerRun/3 {
			return fmt.Errorf("%d verdicts so far", n)
		}
		return nil
	})
	before := verdicts.Load()
	stopGuard()
	natstest.Eventually(t, 10*time.Second, func() error {
		if n := waiting.Load(); n < runs/2 {
			return fmt.Errorf("%d calls waiting for a verdict", n)
		}
		return nil
	})
	p.setMute(true)
	p.setDown(true)
	gone, up := rs.restart()
	mu.Lock()
	goneAt, upAt = gone, up
	mu.Unlock()
	stopGuard = startGuard()
	drained()
	held := time.Since(gone)
	p.setMute(false)
	p.setDown(false)
	wg.Wait()
	t.Logf("restarted guard-consumer and the server after %d of %d verdicts; no server ran for %v, and the agents were cut off for %v; %d calls and %d results were in flight then",
		before, runs*callsPerRun, upAt.Sub(goneAt).Round(time.Millisecond), held.Round(time.Millisecond), spanned[0], spanned[1])
	for _, f := range failures {
		t.Error(f)
	}

	// The guard has consumed everything; count what the streams hold.
	drained()
	final := map[string]int{}
	for _, m := range natstest.Messages(t, js, streams.ControlStream) {
		var d event.Decision
		if event.DecodeDecision(m.Data, &d) == nil && d.Call != "" && d.Kind.IsVerdict() && d.Kind != event.Defer {
			final[d.Run+"/"+d.Call]++
		}
	}
	storedResults := map[string]int{}
	for i := range runs {
		run := "agent-" + strconv.Itoa(i)
		seen := map[string]bool{}
		for _, ev := range stored(t, js, run) {
			if ev.Kind == event.KindResult && ev.Abandoned {
				t.Errorf("%s: %s was abandoned", run, ev.Call)
			}
			if ev.Kind == event.KindResult && !ev.Abandoned {
				if seen[ev.Call] {
					t.Errorf("%s: the result of %s is stored twice", run, ev.Call)
				}
				seen[ev.Call] = true
				storedResults[run]++
			}
		}
		if storedResults[run] != published[run] {
			t.Errorf("%s: %d results acknowledged, %d stored", run, published[run], storedResults[run])
		}
	}
	doubled := 0
	for k, n := range final {
		if n != 1 {
			doubled++
			t.Errorf("%s has %d final verdicts in %s, want 1", k, n, streams.ControlStream)
		}
	}
	st := c.Stats()
	t.Logf("%d calls, %d verdicts returned, %d final verdicts stored (%d not exactly one); %d results acknowledged, %d stored",
		runs*callsPerRun, verdicts.Load(), len(final), doubled, results.Load(), sum(storedResults))
	t.Logf("the agents' connection reconnected %d times; %d events republished, %d catch-ups, %d decisions recovered by them, %d ignored",
		agentConn.Stats().Reconnects, st.Republished, st.CatchUps, st.Recovered, st.Ignored)
	if spanned[0] == 0 || st.Recovered == 0 {
		t.Error("no call waited across the restart for a verdict published while its agent was away")
	}
	if int(verdicts.Load()) != runs*callsPerRun || len(final) != runs*callsPerRun {
		t.Errorf("want %d calls each with one verdict", runs*callsPerRun)
	}
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}
