package streams

import (
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
)

func TestBuildersRejectInvalidTokens(t *testing.T) {
	for _, id := range []string{"", "a.b", "a*", "a>b", "a b", "tab\there", "new\nline", "\x00", strings.Repeat("x", event.MaxIDLen+1), "\xff\xfe"} {
		if _, err := EventSubject(id, "run", event.KindCall); err == nil {
			t.Errorf("EventSubject accepted tenant %q", id)
		}
		if _, err := EventSubject("acme", id, event.KindCall); err == nil {
			t.Errorf("EventSubject accepted run %q", id)
		}
		if _, err := ControlSubject("acme", id, event.Allow); err == nil {
			t.Errorf("ControlSubject accepted run %q", id)
		}
		if _, err := RunControlFilter(id, "run"); err == nil {
			t.Errorf("RunControlFilter accepted tenant %q", id)
		}
	}
	if _, err := EventSubject("acme", "r", event.Kind(99)); err == nil {
		t.Error("EventSubject accepted an unknown kind")
	}
	if _, err := ControlSubject("acme", "r", event.DecisionKind(99)); err == nil {
		t.Error("ControlSubject accepted an unknown decision kind")
	}
}

func TestBuilders(t *testing.T) {
	for _, tc := range []struct {
		got  func() (string, error)
		want string
	}{
		{func() (string, error) { return EventSubject("acme", "run-1", event.KindCall) }, "agent.acme.run-1.call"},
		{func() (string, error) { return EventSubject("acme", "run-1", event.KindRunStart) }, "agent.acme.run-1.run"},
		{func() (string, error) { return EventSubject("acme", "run-1", event.KindRunEnd) }, "agent.acme.run-1.run"},
		{func() (string, error) { return EventSubject("acme", "run-1", event.KindHeartbeat) }, "agent.acme.run-1.hb"},
		{func() (string, error) { return ControlSubject("acme", "run-1", event.Allow) }, "guard.ctl.acme.run-1.verdict"},
		{func() (string, error) { return ControlSubject("acme", "run-1", event.Defer) }, "guard.ctl.acme.run-1.verdict"},
		{func() (string, error) { return ControlSubject("acme", "run-1", event.Advise) }, "guard.ctl.acme.run-1.advice"},
		{func() (string, error) { return ControlSubject("acme", "run-1", event.Stop) }, "guard.ctl.acme.run-1.stop"},
		{func() (string, error) { return RunControlFilter("acme", "ünïcode_ok") }, "guard.ctl.acme.ünïcode_ok.>"},
	} {
		got, err := tc.got()
		if err != nil || got != tc.want {
			t.Errorf("got %q, %v; want %q", got, err, tc.want)
		}
	}
	if got := DeadLetterSubject(DeadOversize); got != "guard.dlq.oversize" {
		t.Errorf("DeadLetterSubject = %q", got)
	}
	if got := CheckpointKey(7); got != "_guard.checkpoint.p7" {
		t.Errorf("CheckpointKey = %q", got)
	}
	if got := PartitionFilter(7); got != "agent.7.>" {
		t.Errorf("PartitionFilter = %q", got)
	}
}

func TestParseStored(t *testing.T) {
	s, err := ParseStored("agent.3.acme.run-1.call")
	if err != nil || s != (Stored{Partition: 3, Tenant: "acme", Run: "run-1", Kind: "call", Key: "acme.run-1"}) {
		t.Errorf("got %+v, %v", s, err)
	}
	if s.Key != RunKey(s.Tenant, s.Run) {
		t.Errorf("Key %q, RunKey %q", s.Key, RunKey(s.Tenant, s.Run))
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = ParseStored("agent.3.acme.run-1.call") }); n != 0 {
		t.Errorf("ParseStored allocates %v times", n)
	}
	for _, bad := range []string{"agent.acme.run-1.call", "agent.x.acme.r.call", "agent.-1.acme.r.call", "guard.ctl.a.b.c", "agent.1.acme.r.call.extra", "agent.1.a*.r.call"} {
		if _, err := ParseStored(bad); err == nil {
			t.Errorf("ParseStored(%q) accepted it", bad)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*Config){
		"no partitions":         func(c *Config) { c.Partitions = 0 },
		"too many partitions":   func(c *Config) { c.Partitions = MaxPartitions + 1 },
		"two replicas":          func(c *Config) { c.Replicas = 2 },
		"no max age":            func(c *Config) { c.EventMaxAge = 0 },
		"window beyond max age": func(c *Config) { c.Duplicates = 48 * 3600e9 },
	} {
		c := DefaultConfig()
		mod(&c)
		if c.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
