package streams_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Every limit out of range is refused with a message that names it.
func TestLimitsValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*streams.Config)
		want string
	}{
		{"no event cap", func(c *streams.Config) { c.EventMaxBytes = 0 }, "event_max_bytes is 0 bytes; want at least 1048576"},
		{"tiny timer cap", func(c *streams.Config) { c.TimerMaxBytes = 1 << 10 }, "timer_max_bytes"},
		{"no control cap", func(c *streams.Config) { c.ControlMaxBytes = -1 }, "control_max_bytes"},
		{"no dead-letter cap", func(c *streams.Config) { c.DeadLetterMaxBytes = 0 }, "dead_letter_max_bytes"},
		{"no bucket cap", func(c *streams.Config) { c.RunsMaxBytes = 0 }, "runs_max_bytes"},
		{"tiny events", func(c *streams.Config) { c.EventMaxMsgSize = 100 }, "event_max_msg_size is 100 bytes; want 1024 to 1047552"},
		{"events past max_payload", func(c *streams.Config) { c.EventMaxMsgSize = 1 << 20 }, "event_max_msg_size"},
		{"stream smaller than 16 events", func(c *streams.Config) { c.EventMaxBytes, c.EventMaxMsgSize = 2<<20, 512<<10 },
			"holds fewer than 16 events of event_max_msg_size"},
		{"per-subject cap too small", func(c *streams.Config) { c.MaxMsgsPerSubject = 10 }, "max_msgs_per_subject is 10; want at least 100"},
		{"no per-subject cap", func(c *streams.Config) { c.MaxMsgsPerSubject = 0 }, "max_msgs_per_subject"},
	} {
		c := streams.DefaultConfig()
		tc.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error with %q", tc.name, err, tc.want)
		}
	}
}

// Each stream carries its caps and discards what decision 23 says.
func TestStreamLimits(t *testing.T) {
	c := streams.DefaultConfig()
	for _, tc := range []struct {
		sc         jetstream.StreamConfig
		maxBytes   int64
		msgSize    int32
		perSubject int64
	}{
		{c.EventStreamConfig(), c.EventMaxBytes, int32(c.EventMaxMsgSize + streams.EventHeaderBytes), c.MaxMsgsPerSubject},
		{c.TimerStreamConfig(), c.TimerMaxBytes, 0, c.MaxMsgsPerSubject},
		{c.ControlStreamConfig(), c.ControlMaxBytes, 0, c.MaxMsgsPerSubject},
		{c.DeadLetterStreamConfig(), c.DeadLetterMaxBytes, 0, 0},
	} {
		sc := tc.sc
		if sc.MaxBytes != tc.maxBytes || sc.MaxMsgSize != tc.msgSize || sc.MaxMsgsPerSubject != tc.perSubject {
			t.Errorf("%s: max bytes %d, message size %d, per subject %d; want %d, %d, %d",
				sc.Name, sc.MaxBytes, sc.MaxMsgSize, sc.MaxMsgsPerSubject, tc.maxBytes, tc.msgSize, tc.perSubject)
		}
		if sc.Discard != jetstream.DiscardOld || sc.DiscardNewPerSubject {
			t.Errorf("%s discards %v (new per subject: %t); want old", sc.Name, sc.Discard, sc.DiscardNewPerSubject)
		}
	}
	if b := c.RunsBucketConfig(); b.MaxBytes != c.RunsMaxBytes {
		t.Errorf("guard_runs: max bytes %d, want %d", b.MaxBytes, c.RunsMaxBytes)
	}
}

// Provision gives streams made without limits (by an older version)
// their caps.
func TestProvisionAppliesLimitsToExistingStreams(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := context.Background()
	c := streams.DefaultConfig()
	c.Memory = true
	uncapped := func(sc jetstream.StreamConfig) jetstream.StreamConfig {
		sc.MaxBytes, sc.MaxMsgSize, sc.MaxMsgsPerSubject = -1, -1, -1
		return sc
	}
	for _, sc := range []jetstream.StreamConfig{c.TimerStreamConfig(), c.EventStreamConfig(), c.ControlStreamConfig(), c.DeadLetterStreamConfig()} {
		if _, err := js.CreateStream(ctx, uncapped(sc)); err != nil {
			t.Fatal(err)
		}
	}
	kv := c.RunsBucketConfig()
	kv.MaxBytes = 0
	if _, err := js.CreateKeyValue(ctx, kv); err != nil {
		t.Fatal(err)
	}
	if err := streams.Provision(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{
		streams.EventStream: c.EventMaxBytes, streams.TimerStream: c.TimerMaxBytes, streams.ControlStream: c.ControlMaxBytes,
		streams.DeadLetterStream: c.DeadLetterMaxBytes, "KV_" + streams.RunsBucket: c.RunsMaxBytes,
	} {
		st, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		if got := st.CachedInfo().Config.MaxBytes; got != want {
			t.Errorf("%s: max bytes %d after Provision, want %d", name, got, want)
		}
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	if got := es.CachedInfo().Config; got.MaxMsgsPerSubject != c.MaxMsgsPerSubject || got.MaxMsgSize != int32(c.EventMaxMsgSize+streams.EventHeaderBytes) {
		t.Errorf("AGENT_EVENTS after Provision: per subject %d, message size %d", got.MaxMsgsPerSubject, got.MaxMsgSize)
	}
}

// What the server does at AGENT_EVENTS's caps: it refuses an oversize
// event to its publisher; past the per-subject cap a run's own oldest
// events of that kind go; past the stream's cap the oldest go; and no
// publish is refused for being over a cap.
func TestEventStreamCaps(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := context.Background()
	c := streams.DefaultConfig()
	c.Memory, c.EventMaxBytes, c.EventMaxMsgSize, c.MaxMsgsPerSubject = true, 1<<20, 32<<10, 100
	if err := streams.Provision(ctx, js, c); err != nil {
		t.Fatal(err)
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	subject := func(run string) string {
		s, _ := streams.EventSubject("acme", run, event.KindCall)
		return s
	}

	// Oversize: refused, with the server's reason.
	_, err := js.Publish(ctx, subject("big"), make([]byte, c.EventMaxMsgSize+streams.EventHeaderBytes+1))
	var api *jetstream.APIError
	if !errors.As(err, &api) || api.ErrorCode != jetstream.JSErrCodeStreamMessageExceedsMaximum {
		t.Errorf("oversize event: %v, want the server's 'message size exceeds maximum allowed'", err)
	} else {
		t.Logf("oversize event refused: %v", err)
	}
	if _, err := js.Publish(ctx, subject("big"), make([]byte, c.EventMaxMsgSize)); err != nil {
		t.Errorf("an event of event_max_msg_size: %v", err)
	}

	// Per subject: a victim's call stays while the flooder's calls
	// replace the flooder's own.
	victim, err := js.Publish(ctx, subject("victim"), []byte("call"))
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 * c.MaxMsgsPerSubject {
		if _, err := js.Publish(ctx, subject("flood"), fmt.Appendf(nil, "call %d", i)); err != nil {
			t.Fatalf("flood publish %d: %v", i, err)
		}
	}
	if n := natstest.SubjectCount(t, js, streams.EventStream, "agent.*.acme.flood.call"); n != uint64(c.MaxMsgsPerSubject) {
		t.Errorf("the flooded run keeps %d calls, want its newest %d", n, c.MaxMsgsPerSubject)
	}
	if _, err := es.GetMsg(ctx, victim.Sequence); err != nil {
		t.Errorf("the victim's call is gone after another run's flood: %v", err)
	}

	// The stream's cap: many runs fill it, the oldest go, and publishing
	// goes on.
	payload := make([]byte, 16<<10)
	for i := range 100 {
		if _, err := js.Publish(ctx, subject(fmt.Sprintf("r%d", i)), payload); err != nil {
			t.Fatalf("publish %d into a full stream: %v", i, err)
		}
	}
	info, err := es.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Bytes > uint64(c.EventMaxBytes) {
		t.Errorf("AGENT_EVENTS holds %d bytes, over its cap of %d", info.State.Bytes, c.EventMaxBytes)
	}
	if _, err := es.GetMsg(ctx, victim.Sequence); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("the oldest event after 1.6 MiB more: %v, want it dropped", err)
	}
	t.Logf("after the floods: %d events, %d bytes, first sequence %d", info.State.Msgs, info.State.Bytes, info.State.FirstSeq)
}
