package integration

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/streams"
	"github.com/vmihailenco/msgpack/v5"
)

// TestMalformedInputGoesToDeadLetters publishes bad events into the same
// run's partition, each followed by a valid call that must still be
// answered: nothing is dropped silently and nothing blocks the partition.
func TestMalformedInputGoesToDeadLetters(t *testing.T) {
	s := newSystem(t, 4)
	s.startGuard(guard.DefaultPolicy())
	c := s.client("acme", client.WithVerdictTimeout(5*time.Second))
	ctx := context.Background()
	r, err := c.Start(ctx, "r1", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	callSubject, _ := streams.EventSubject("acme", "r1", event.KindCall)
	valid := func(seq int64) map[string]any {
		return map[string]any{"v": 1, "k": 4, "tn": "acme", "run": "r1", "seq": seq, "ts": time.Now().UnixMilli(), "call": "x", "tool": "ls"}
	}
	pack := func(m map[string]any) []byte {
		b, err := msgpack.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	with := func(key string, v any) []byte {
		m := valid(100)
		m[key] = v
		return pack(m)
	}
	cases := []struct {
		name    string
		subject string
		data    []byte
		reason  streams.DeadReason
		errHas  string
	}{
		{"garbage bytes", callSubject, []byte("\x00\xffnot msgpack at all"), streams.DeadUndecodable, "not a msgpack map"},
		{"wrong-typed field", callSubject, with("seq", "seven"), streams.DeadWrongType, `"seq": want integer, got string`},
		{"invalid id token", callSubject, with("run", "r 1"), streams.DeadInvalid, `"run"`},
		{"id with a wildcard", callSubject, with("tn", "ac*me"), streams.DeadInvalid, `"tn"`},
		{"unknown subject kind", "agent.acme.r1.bogus", pack(valid(100)), streams.DeadSubject, "subject says bogus"},
		{"payload of another run", callSubject, with("run", "r2"), streams.DeadSubject, "acme/r2"},
		// Just over the limit: the stream takes up to streams.EventHeaderBytes
		// more (for headers), so the runner sees it; a larger one the server
		// refuses to its publisher.
		{"oversize payload", callSubject, with("out", strings.Repeat("x", 64<<10)), streams.DeadOversize, "the limit is 65536"},
		{"unsupported version", callSubject, with("v", 9), streams.DeadVersion, `"v"`},
		{"duplicate sequence", callSubject, pack(valid(1)), streams.DeadDuplicate, "seq 1 is not above"},
	}
	for i, tc := range cases {
		s.publishRaw(tc.subject, tc.data)
		// The next valid event in the same partition is still processed.
		v, err := r.Call(ctx, client.Call{Tool: "ls", Args: fmt.Sprintf(`{"i":%d}`, i)})
		if err != nil || v.Kind != event.Allow {
			t.Fatalf("after %s: valid call got %s, %v; want allow", tc.name, v.Kind, err)
		}
		if err := r.Result(ctx, client.Result{Call: v.Call, Out: "ok"}); err != nil {
			t.Fatal(err)
		}
	}

	// Every dead-lettered call whose id could be read was also rejected,
	// so its agent learns why instead of waiting out its deadline. An
	// agent receives a decision as the server takes it in, which can be
	// before the stream has stored it: once every event is acked, all
	// they caused is stored.
	s.settle()
	rejected := 0
	for _, m := range s.all(streams.ControlStream) {
		d := decode(t, m)
		if d.Kind == event.Reject && d.Reason == event.ReasonInvalidEvent && d.Call == "x" && strings.Contains(d.Msg, "guard.dlq.") {
			rejected++
		}
	}
	if rejected != 7 {
		t.Errorf("%d dead-lettered calls rejected with INVALID_EVENT, want 7 (all but the undecodable one and the one on a bogus subject)", rejected)
	}

	dead := s.msgs(streams.DeadLetterStream, len(cases))
	for i, tc := range cases {
		m := dead[i]
		if m.Subject != streams.DeadLetterSubject(tc.reason) || m.Header.Get(streams.HeaderReason) != string(tc.reason) {
			t.Errorf("%s: dead letter on %s with reason %q, want reason %s", tc.name, m.Subject, m.Header.Get(streams.HeaderReason), tc.reason)
		}
		if e := m.Header.Get(streams.HeaderError); !strings.Contains(e, tc.errHas) {
			t.Errorf("%s: error %q does not mention %q", tc.name, e, tc.errHas)
		}
		if m.Header.Get(streams.HeaderSubject) == "" || m.Header.Get(streams.HeaderSequence) == "" {
			t.Errorf("%s: dead letter lacks the original subject or sequence", tc.name)
		}
		if !bytes.Equal(m.Data, tc.data) {
			t.Errorf("%s: dead letter does not carry the original bytes", tc.name)
		}
	}
}
