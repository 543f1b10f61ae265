package lease_test

import (
	"fmt"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/processors/lease"
	"github.com/guardstream/guardstream/processors/processortest"
)

func start(ttl int64) *processortest.History {
	h := &processortest.History{Tenant: "acme", Run: "r"}
	return h.Add(event.Event{Kind: event.KindRunStart, Agent: "test", Lease: ttl})
}

// run applies h and renders each event's decisions and timers.
func run(p lease.Policy, h *processortest.History) []string {
	c := processors.NewChain(lease.New(p))
	r := c.NewRun()
	var out processors.Out
	var got []string
	for _, ev := range h.Events() {
		c.Apply(r, &ev, &out)
		s := ""
		for _, d := range out.Decisions {
			s += fmt.Sprintf("%s:%s:%s ", d.Kind, d.Reason, d.Outcome)
		}
		for _, t := range out.Timers {
			s += fmt.Sprintf("timer(%s,%d,%d) ", t.Name, t.After, t.Gen)
		}
		got = append(got, s)
	}
	return got
}

func TestLease(t *testing.T) {
	tests := []struct {
		name    string
		policy  func(*lease.Policy)
		history *processortest.History
		want    []string
	}{
		{
			name:    "armed at start, renewed by heartbeats, expired by the current timer",
			history: start(5000).Add(event.Event{Kind: event.KindHeartbeat}).Add(event.Event{Kind: event.KindHeartbeat}).Timer("lease", 3),
			want:    []string{"timer(lease,5000,1) ", "timer(lease,5000,2) ", "timer(lease,5000,3) ", "stop:LEASE_EXPIRED:cancelled "},
		},
		{
			name:    "a timer overtaken by a heartbeat changes nothing",
			history: start(5000).Add(event.Event{Kind: event.KindHeartbeat}).Timer("lease", 1).Timer("lease", 2),
			want:    []string{"timer(lease,5000,1) ", "timer(lease,5000,2) ", "", "stop:LEASE_EXPIRED:cancelled "},
		},
		{
			name:    "events after expiry are stale, timers silent",
			history: start(5000).Timer("lease", 1).Add(event.Event{Kind: event.KindHeartbeat}).Add(event.Event{Kind: event.KindCall, Call: "c1", Tool: "ls"}).Timer("lease", 1),
			want:    []string{"timer(lease,5000,1) ", "stop:LEASE_EXPIRED:cancelled ", "stale:: ", "reject:LEASE_EXPIRED: ", ""},
		},
		{
			name:    "no lease: heartbeats and stray timers do nothing",
			history: start(0).Add(event.Event{Kind: event.KindHeartbeat}).Timer("lease", 1),
			want:    []string{"", "", ""},
		},
		{
			name:    "the policy's default applies to a run that declares none",
			policy:  func(p *lease.Policy) { p.DefaultTTL = 30000 },
			history: start(0).Add(event.Event{Kind: event.KindHeartbeat}),
			want:    []string{"timer(lease,30000,1) ", "timer(lease,30000,2) "},
		},
		{
			name:    "the policy caps a declared lease",
			policy:  func(p *lease.Policy) { p.MaxTTL = 10000 },
			history: start(60000),
			want:    []string{"timer(lease,10000,1) "},
		},
		{
			name:    "another processor's timer is not a lease",
			history: start(5000).Timer("round-7", 1),
			want:    []string{"timer(lease,5000,1) ", ""},
		},
		{
			name:    "the run's end makes the lease moot",
			history: start(5000).Add(event.Event{Kind: event.KindRunEnd, Status: event.StatusCompleted}).Timer("lease", 1),
			want:    []string{"timer(lease,5000,1) ", "", ""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := lease.DefaultPolicy()
			if tt.policy != nil {
				tt.policy(&p)
			}
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			got := run(p, tt.history)
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestPolicyValidate(t *testing.T) {
	for _, p := range []lease.Policy{{DefaultTTL: 10}, {MaxTTL: -1}, {DefaultTTL: 5000, MaxTTL: 2000}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
}

func TestGolden(t *testing.T) {
	h := start(10000)
	for range 3 {
		h.Add(event.Event{Kind: event.KindHeartbeat})
	}
	h.Timer("lease", 2).Timer("lease", 4).Add(event.Event{Kind: event.KindHeartbeat})
	processortest.Golden(t, processors.NewChain(lease.New(lease.DefaultPolicy())), h.Events(), "expiry")
}

func TestConformance(t *testing.T) {
	h := start(10000)
	for range 3 {
		h.Add(event.Event{Kind: event.KindHeartbeat})
	}
	h.Timer("lease", 2).Timer("lease", 4).Add(event.Event{Kind: event.KindHeartbeat})
	processortest.Run(t, lease.New(lease.DefaultPolicy()), h.Events())
}

func BenchmarkHeartbeat(b *testing.B) {
	c := processors.NewChain(lease.New(lease.DefaultPolicy()))
	r := c.NewRun()
	var out processors.Out
	h := start(10000)
	c.Apply(r, &h.Events()[0], &out)
	ev := event.Event{V: 1, Kind: event.KindHeartbeat, Tenant: "acme", Run: "r", TS: processortest.BaseTS}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		ev.Seq = int64(i + 2)
		c.Apply(r, &ev, &out)
	}
}
