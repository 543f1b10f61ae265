package streams_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestProvisionIsIdempotent(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := context.Background()
	cfg := streams.DefaultConfig()
	cfg.Partitions = 8
	for range 3 {
		if err := streams.Provision(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{streams.EventStream, streams.ControlStream, streams.DeadLetterStream, streams.TimerStream, "KV_" + streams.RunsBucket} {
		if _, err := js.Stream(ctx, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	// Every event of a run lands in one partition, given by the transform.
	subj, _ := streams.EventSubject("acme", "run-1", event.KindCall)
	ack, err := js.Publish(ctx, subj, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	m, err := es.GetMsg(ctx, ack.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	st, err := streams.ParseStored(m.Subject)
	if err != nil || st.Tenant != "acme" || st.Run != "run-1" || st.Kind != "call" || st.Partition >= 8 {
		t.Fatalf("stored as %q: %+v, %v", m.Subject, st, err)
	}
	for _, k := range []event.Kind{event.KindRunStart, event.KindResult, event.KindHeartbeat} {
		subj, _ := streams.EventSubject("acme", "run-1", k)
		ack, err := js.Publish(ctx, subj, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		m, _ := es.GetMsg(ctx, ack.Sequence)
		if got, _ := streams.ParseStored(m.Subject); got.Partition != st.Partition {
			t.Errorf("%s went to partition %d, the run's calls to %d", k, got.Partition, st.Partition)
		}
	}

	cfg.Partitions = 4
	if err := streams.Provision(ctx, js, cfg); !errors.Is(err, streams.ErrPartitionsChanged) {
		t.Errorf("changing the partition count: %v, want ErrPartitionsChanged", err)
	}
}

// A timer fired in GUARD_TIMERS lands in AGENT_EVENTS in its run's
// partition, as a timer event that keeps the scheduler's header.
func TestFiredTimersJoinTheirPartition(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := streams.DefaultConfig()
	if err := streams.Provision(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	call, _ := streams.EventSubject("acme", "run-7", event.KindCall)
	ack, err := js.Publish(ctx, call, []byte("call"))
	if err != nil {
		t.Fatal(err)
	}
	timer, _ := streams.TimerSubject("acme", "run-7", "lease")
	fired, _ := streams.FiredSubject("acme", "run-7")
	m := nats.NewMsg(timer)
	m.Data = []byte("timer")
	m.Header.Set(jetstream.ScheduleHeader, "@at "+time.Now().UTC().Format(time.RFC3339Nano))
	m.Header.Set(jetstream.ScheduleTargetHeader, fired)
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	callMsg, _ := es.GetMsg(ctx, ack.Sequence)
	want, _ := streams.ParseStored(callMsg.Subject)
	deadline := time.Now().Add(10 * time.Second)
	for {
		rm, err := es.GetLastMsgForSubject(ctx, "agent.*.acme.run-7.timer")
		if err == nil {
			got, err := streams.ParseStored(rm.Subject)
			if err != nil || got.Partition != want.Partition || got.Kind != "timer" {
				t.Fatalf("fired timer stored as %q (%+v, %v); the run's call is in partition %d", rm.Subject, got, err, want.Partition)
			}
			if h := rm.Header.Get(jetstream.SchedulerHeader); h != timer {
				t.Fatalf("scheduler header %q, want %q", h, timer)
			}
			t.Logf("timer fired into %s with %s: %s", rm.Subject, jetstream.SchedulerHeader, timer)
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no fired timer in %s: %v", streams.EventStream, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// AGENT_EVENTS refuses the headers that would let an agent purge it,
// schedule into another run or cancel a guard timer.
func TestEventStreamRefusesControlHeaders(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := streams.Provision(ctx, js, streams.DefaultConfig()); err != nil {
		t.Fatal(err)
	}
	victim, _ := streams.EventSubject("victim", "r1", event.KindCall)
	if _, err := js.Publish(ctx, victim, []byte("the victim's call")); err != nil {
		t.Fatal(err)
	}
	own, _ := streams.EventSubject("evil", "r1", event.KindCall)
	lease, _ := streams.TimerSubject("victim", "r1", "lease")
	for name, h := range map[string]nats.Header{
		"rollup all":       {jetstream.MsgRollup: {jetstream.MsgRollupAll}},
		"schedule":         {jetstream.ScheduleHeader: {"@at 2020-01-01T00:00:00Z"}, jetstream.ScheduleTargetHeader: {victim}},
		"schedule purge":   {"Nats-Schedule-Next": {"purge"}, jetstream.SchedulerHeader: {lease}},
		"message ttl":      {jetstream.MsgTTLHeader: {"1s"}},
		"forged scheduler": {jetstream.SchedulerHeader: {lease}},
	} {
		m := nats.NewMsg(own)
		m.Header = h
		if _, err := js.PublishMsg(ctx, m); err == nil {
			t.Errorf("%s: AGENT_EVENTS stored it", name)
		} else {
			t.Logf("%s: refused: %v", name, err)
		}
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	if info, err := es.Info(ctx); err != nil || info.State.Msgs != 1 {
		t.Fatalf("AGENT_EVENTS holds %v messages (%v), want the victim's call alone", info.State.Msgs, err)
	}
}

// An AGENT_EVENTS made by an older version, which held the timers, is
// refused with what to do.
func TestProvisionRefusesAnOutdatedEventStream(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := context.Background()
	cfg := streams.DefaultConfig()
	old := cfg.EventStreamConfig()
	old.Sources, old.AllowMsgSchedules, old.AllowRollup = nil, true, true
	old.Subjects = append(old.Subjects, "guard.timer.*.*.*")
	if _, err := js.CreateStream(ctx, old); err != nil {
		t.Fatal(err)
	}
	err := streams.Provision(ctx, js, cfg)
	if !errors.Is(err, streams.ErrEventStreamOutdated) {
		t.Fatalf("Provision over an outdated stream: %v, want ErrEventStreamOutdated", err)
	}
	t.Log(err)
}
