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

// TestOverLimitEventsGoToDeadLetters publishes, into one run's partition,
// events over each limit on what a sender controls (docs/wire.md §3.4):
// each ends in a dead letter with its typed reason and an error naming the
// field, each call among them is rejected with INVALID_EVENT, and a valid
// call after each is still answered.
func TestOverLimitEventsGoToDeadLetters(t *testing.T) {
	s := newSystem(t, 2)
	s.startGuard(guard.DefaultPolicy())
	c := s.client("acme", client.WithVerdictTimeout(5*time.Second))
	ctx := context.Background()
	r, err := c.Start(ctx, "r1", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	subject := func(k event.Kind) string {
		subj, err := streams.EventSubject("acme", "r1", k)
		if err != nil {
			t.Fatal(err)
		}
		return subj
	}
	seq := int64(1000)
	base := func(k event.Kind, fields map[string]any) []byte {
		seq++
		m := map[string]any{"v": 1, "k": int(k), "tn": "acme", "run": "r1", "seq": seq, "ts": time.Now().UnixMilli()}
		for key, v := range fields {
			m[key] = v
		}
		b, err := msgpack.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	deepJSON := strings.Repeat("[", event.MaxJSONDepth+1) + strings.Repeat("]", event.MaxJSONDepth+1)
	longPath := "/" + strings.Repeat("p", event.MaxPathLen)
	nested := func(n int) any {
		var v any = 1
		for range n {
			v = []any{v}
		}
		return v
	}
	many := func(n int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprint("c", i)
		}
		return out
	}
	type tc struct {
		name   string
		kind   event.Kind
		data   []byte
		call   string // the call id a reject must name; "" for no reject
		reason streams.DeadReason
		errHas string
	}
	cases := []tc{
		{"call args nested too deep", event.KindCall, base(event.KindCall, map[string]any{"call": "deep", "tool": "ls", "args": `{"a":` + deepJSON + `}`}), "deep", streams.DeadInvalid, `over a size limit: "args"`},
		{"call path too long", event.KindCall, base(event.KindCall, map[string]any{"call": "long", "tool": "ls", "path": longPath}), "long", streams.DeadInvalid, `over a size limit: "path"`},
		{"call tool name too long", event.KindCall, base(event.KindCall, map[string]any{"call": "name", "tool": strings.Repeat("t", event.MaxToolLen+1)}), "name", streams.DeadInvalid, `over a size limit: "tool"`},
		{"call with its ts after the year 9999", event.KindCall, base(event.KindCall, map[string]any{"call": "late", "tool": "ls", "ts": int64(event.MaxTS + 1)}), "late", streams.DeadInvalid, `over a size limit: "ts"`},
		{"call nested too deep in msgpack", event.KindCall, base(event.KindCall, map[string]any{"call": "nest", "tool": "ls", "later": nested(event.MaxNesting)}), "nest", streams.DeadInvalid, `over a size limit: "later"`},
		{"step doc nested too deep", event.KindStep, base(event.KindStep, map[string]any{"doc": deepJSON}), "", streams.DeadInvalid, `over a size limit: "doc"`},
		{"result with too many changed paths", event.KindResult, base(event.KindResult, map[string]any{"call": "x", "chg": map[string]any{"paths": many(event.MaxChangedPaths + 1)}}), "", streams.DeadInvalid, `over a size limit: "chg.paths"`},
		{"round of too many calls", event.KindRound, base(event.KindRound, map[string]any{"calls": many(event.MaxRoundCalls + 1)}), "", streams.DeadInvalid, `over a size limit: "calls"`},
		{"round waiting over a week", event.KindRound, base(event.KindRound, map[string]any{"calls": many(1), "wait": int64(event.MaxDuration + 1)}), "", streams.DeadInvalid, `over a size limit: "wait"`},
		{"run start with a lease over a week", event.KindRunStart, base(event.KindRunStart, map[string]any{"lease": int64(event.MaxDuration + 1)}), "", streams.DeadInvalid, `over a size limit: "lease"`},
		{"run start with too many tools", event.KindRunStart, base(event.KindRunStart, map[string]any{"tools": func() []any {
			out := many(event.MaxDeclared + 1)
			for i, n := range out {
				out[i] = map[string]any{"name": n, "schema": "{}"}
			}
			return out
		}()}), "", streams.DeadInvalid, `over a size limit: "tools"`},
		{"run start with a tool schema nested too deep", event.KindRunStart, base(event.KindRunStart, map[string]any{"tools": []any{map[string]any{"name": "ls", "schema": deepJSON}}}), "", streams.DeadInvalid, `over a size limit: "tools[0].schema"`},
		{"run start with a workspace path too long", event.KindRunStart, base(event.KindRunStart, map[string]any{"ws": longPath}), "", streams.DeadInvalid, `over a size limit: "ws"`},
		{"step claiming four billion elements", event.KindStep, []byte{0x82, 0xa1, 'v', 0x01, 0xa3, 'd', 'o', 'c', 0xdd, 0xff, 0xff, 0xff, 0xff}, "", streams.DeadUndecodable, "claims 4294967295 elements"},
		// A call: the runner reads what it can of a dead-lettered call to
		// reject it, and that read must not trust the claim either.
		{"call claiming four billion elements", event.KindCall, []byte{0x83, 0xa1, 'v', 0x01, 0xa4, 'c', 'a', 'l', 'l', 0xa2, 'c', '9', 0xa4, 'a', 'r', 'g', 's', 0xdd, 0xff, 0xff, 0xff, 0xff}, "", streams.DeadUndecodable, "claims 4294967295 elements"},
		{"step larger than the payload limit", event.KindStep, base(event.KindStep, map[string]any{"doc": `"` + strings.Repeat("x", 64<<10) + `"`}), "", streams.DeadOversize, "the limit is 65536"},
	}
	for i, tc := range cases {
		s.publishRaw(subject(tc.kind), tc.data)
		// The next valid event in the same run is still processed.
		v, err := r.Call(ctx, client.Call{Tool: "ls", Args: fmt.Sprintf(`{"i":%d}`, i)})
		if err != nil || v.Kind != event.Allow {
			t.Fatalf("after %s: a valid call got %s, %v; want allow", tc.name, v.Kind, err)
		}
		if err := r.Result(ctx, client.Result{Call: v.Call, Out: "ok"}); err != nil {
			t.Fatal(err)
		}
	}

	dead := s.msgs(streams.DeadLetterStream, len(cases))
	if len(dead) != len(cases) {
		t.Fatalf("%d dead letters, want %d", len(dead), len(cases))
	}
	for i, tc := range cases {
		m := dead[i]
		t.Logf("%-46s -> %s: %.110s", tc.name, m.Subject, m.Header.Get(streams.HeaderError))
		if m.Subject != streams.DeadLetterSubject(tc.reason) || m.Header.Get(streams.HeaderReason) != string(tc.reason) {
			t.Errorf("%s: dead letter on %s with reason %q, want %s", tc.name, m.Subject, m.Header.Get(streams.HeaderReason), tc.reason)
		}
		if e := m.Header.Get(streams.HeaderError); !strings.Contains(e, tc.errHas) {
			t.Errorf("%s: error %q does not say %q", tc.name, e, tc.errHas)
		}
		if !bytes.Equal(m.Data, tc.data) {
			t.Errorf("%s: the dead letter does not carry the original bytes", tc.name)
		}
	}

	s.settle() // every event acked: all they caused is stored
	rejects := map[string]event.Decision{}
	for _, m := range s.all(streams.ControlStream) {
		if d := decode(t, m); d.Kind == event.Reject && d.Reason == event.ReasonInvalidEvent {
			rejects[d.Call] = d
		}
	}
	for _, tc := range cases {
		if tc.call == "" {
			continue
		}
		d, ok := rejects[tc.call]
		if !ok {
			t.Errorf("%s: call %q got no INVALID_EVENT reject", tc.name, tc.call)
			continue
		}
		t.Logf("call %-5s rejected INVALID_EVENT: %.100s", tc.call, d.Msg)
		if !strings.Contains(d.Msg, string(streams.DeadLetterSubject(tc.reason))) {
			t.Errorf("%s: the reject says %q; want it to name %s", tc.name, d.Msg, streams.DeadLetterSubject(tc.reason))
		}
	}
}
