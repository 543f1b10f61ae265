package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// setup returns a connection to a server with provisioned streams and no
// guard-consumer: tests play the guard's part by publishing decisions.
func setup(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	return nc, js
}

// decide publishes d on its control subject, as guard-consumer would, as
// the index-th decision about its event: with the Nats-Msg-Id
// <tenant>.<run>.<seq>.<index>.
func decide(nc *nats.Conn, d event.Decision, index int) error {
	d.V = event.Version
	subj, err := streams.ControlSubject(d.Tenant, d.Run, d.Kind)
	if err != nil {
		return err
	}
	m := nats.NewMsg(subj)
	m.Data = event.AppendDecision(nil, &d)
	m.Header.Set(jetstream.MsgIDHeader, fmt.Sprintf("%s.%s.%d.%d", d.Tenant, d.Run, d.Seq, index))
	if err := nc.PublishMsg(m); err != nil {
		return err
	}
	return nc.Flush()
}

func TestFailModes(t *testing.T) {
	nc, js := setup(t)
	for _, tc := range []struct {
		mode client.FailMode
		want event.DecisionKind
	}{{client.FailClosed, event.Reject}, {client.FailOpen, event.Allow}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			c, err := client.New(nc, "acme", client.WithVerdictTimeout(50*time.Millisecond), client.WithFailMode(tc.mode))
			if err != nil {
				t.Fatal(err)
			}
			r, err := c.Start(context.Background(), "run-"+tc.mode.String(), client.RunSpec{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			v, err := r.Call(context.Background(), client.Call{Tool: "ls"})
			if !errors.Is(err, client.ErrNoVerdict) {
				t.Fatalf("err = %v, want ErrNoVerdict", err)
			}
			if v.Kind != tc.want || !v.Synthetic || v.Call != "c1" {
				t.Errorf("verdict %s synthetic=%t call=%q, want synthetic %s for c1", v.Kind, v.Synthetic, v.Call, tc.want)
			}
			// Failing closed, the client reports the call abandoned, so a
			// late allow does not leave it counted as in flight, and no
			// guard takes it for the tool's failure.
			var abandoned bool
			for _, m := range natstest.Messages(t, js, streams.EventStream) {
				var ev event.Event
				if event.DecodeEvent(m.Data, &ev) == nil && ev.Run == "run-"+tc.mode.String() && ev.Kind == event.KindResult {
					if ev.Err || ev.Out != "" || ev.Validate() != nil {
						t.Errorf("the abandoned report is %+v; want an abandoned result without an outcome", ev)
					}
					abandoned = ev.Call == "c1" && ev.Abandoned && ev.Tool == "ls"
				}
			}
			if abandoned != (tc.mode == client.FailClosed) {
				t.Errorf("reported c1 abandoned: %t; want %t", abandoned, tc.mode == client.FailClosed)
			}
		})
	}
}

func TestDefaultIsFailClosed(t *testing.T) {
	nc, _ := setup(t)
	c, _ := client.New(nc, "acme", client.WithVerdictTimeout(20*time.Millisecond))
	r, err := c.Start(context.Background(), "r", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if v, _ := r.Call(context.Background(), client.Call{Tool: "ls"}); v.Allowed() {
		t.Error("a call without a verdict was allowed by default")
	}
}

func TestNotProvisioned(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, _ := natstest.Connect(t, s)
	c, _ := client.New(nc, "acme")
	if _, err := c.Start(context.Background(), "r", client.RunSpec{}); !errors.Is(err, client.ErrNotProvisioned) {
		t.Errorf("Start on a bare server: %v, want ErrNotProvisioned", err)
	}
}

func TestInvalidIDs(t *testing.T) {
	nc, _ := setup(t)
	if _, err := client.New(nc, "ac.me"); err == nil {
		t.Error("tenant with a dot accepted")
	}
	c, _ := client.New(nc, "acme")
	if _, err := c.Start(context.Background(), "run 1", client.RunSpec{}); err == nil {
		t.Error("run id with a space accepted")
	}
	r, err := c.Start(context.Background(), "r", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Call(context.Background(), client.Call{ID: "c>1", Tool: "ls"}); err == nil {
		t.Error("call id with '>' accepted")
	}
	for _, o := range []client.Option{client.WithVerdictTimeout(0), client.WithAdviceBuffer(0), client.WithFailMode(7)} {
		if _, err := client.New(nc, "acme", o); err == nil {
			t.Error("invalid option accepted")
		}
	}
}

func TestVerdictAdviceAndStop(t *testing.T) {
	nc, js := setup(t)
	c, _ := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second), client.WithAdviceBuffer(2))
	ctx := context.Background()
	r, err := c.Start(ctx, "r", client.RunSpec{Agent: "coder"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	// Play guard: answer each call the agent publishes.
	events, err := js.OrderedConsumer(ctx, streams.EventStream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	var (
		mu   sync.Mutex
		seqs []int64
	)
	go func() {
		for {
			m, err := events.Next()
			if err != nil {
				return
			}
			var ev event.Event
			if event.DecodeEvent(m.Data(), &ev) != nil {
				return
			}
			mu.Lock()
			seqs = append(seqs, ev.Seq)
			mu.Unlock()
			if ev.Kind != event.KindCall {
				continue
			}
			base := event.Decision{Tenant: ev.Tenant, Run: ev.Run, Seq: ev.Seq, Call: ev.Call}
			for i := range 3 {
				a := base
				a.Kind, a.Msg, a.Steer = event.Advise, fmt.Sprint(i), &event.Steer{Kind: event.SteerAvoidRepeat}
				if decide(nc, a, i) != nil {
					return
				}
			}
			v := base
			v.Kind = event.Allow
			if ev.Call == "c2" {
				v.Kind, v.Reason, v.Outcome = event.Stop, event.ReasonLoopDetected, event.StatusFailed
			}
			if decide(nc, v, 3) != nil {
				return
			}
		}
	}()

	v, err := r.Call(ctx, client.Call{Tool: "ls", Args: `{}`})
	if err != nil || v.Kind != event.Allow || v.Synthetic || v.Call != "c1" {
		t.Fatalf("first call: %+v, %v", v, err)
	}
	if n := len(r.Advice()); n != 2 {
		t.Fatalf("%d advice buffered, want 2 (the buffer size)", n)
	}
	if a := <-r.Advice(); a.Msg != "1" {
		t.Errorf("oldest advice kept is %q, want 1: the oldest is dropped when full", a.Msg)
	}
	<-r.Advice()

	v, err = r.Call(ctx, client.Call{Tool: "ls", Args: `{}`})
	if err != nil || v.Kind != event.Stop || v.Reason != event.ReasonLoopDetected {
		t.Fatalf("second call: %+v, %v; want the stop", v, err)
	}
	select {
	case <-r.Done():
	case <-time.After(time.Second):
		t.Fatal("Done not closed after a stop")
	}
	if s := r.Stop(); s == nil || s.Reason != event.ReasonLoopDetected {
		t.Errorf("Stop() = %+v", s)
	}
	// A call after the stop is answered with the stop, without publishing.
	info, _ := js.Stream(ctx, streams.EventStream)
	before, _ := info.Info(ctx)
	v, err = r.Call(ctx, client.Call{Tool: "ls"})
	if err != nil || v.Kind != event.Stop {
		t.Errorf("call after stop: %+v, %v", v, err)
	}
	after, _ := info.Info(ctx)
	if after.State.Msgs != before.State.Msgs {
		t.Error("a call of a stopped run was published")
	}
	mu.Lock()
	defer mu.Unlock()
	if fmt.Sprint(seqs) != "[1 2 3]" {
		t.Errorf("events published with seqs %v, want [1 2 3]", seqs)
	}
}
