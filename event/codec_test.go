package event_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/vmihailenco/msgpack/v5"
)

// pack encodes v with msgpack/v5 directly, map keys sorted, as a
// producer in another language might.
func pack(v any) []byte {
	var b bytes.Buffer
	enc := msgpack.NewEncoder(&b)
	enc.SetSortMapKeys(true)
	enc.UseCompactInts(true)
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// callMap returns a valid call as a generic map.
func callMap() map[string]any {
	return map[string]any{
		"v": 1, "k": 4, "tn": tenant, "run": run, "seq": 3, "ts": t0 + 2000,
		"call": "c1", "tool": "read_file", "args": `{"path":"a.go"}`,
	}
}

// callWith returns the bytes of the valid call with key set to val.
func callWith(key string, val any) []byte {
	m := callMap()
	m[key] = val
	return pack(m)
}

// callWithout returns the bytes of the valid call without key.
func callWithout(key string) []byte {
	m := callMap()
	delete(m, key)
	return pack(m)
}

// errCase is a decode or validation that must fail with an error that
// wraps want and, if field is set, is a *event.FieldError naming it.
type errCase struct {
	name  string
	in    []byte
	want  error
	field string
}

// problem describes how err misses the expectation, or returns "".
func problem(err, want error, field string) string {
	if err == nil {
		return fmt.Sprintf("no error, want one wrapping %q", want)
	}
	if !errors.Is(err, want) {
		return fmt.Sprintf("error %q does not wrap %q", err, want)
	}
	if field == "" {
		return ""
	}
	var fe *event.FieldError
	if !errors.As(err, &fe) {
		return fmt.Sprintf("error %q is not a *event.FieldError; want one naming %q", err, field)
	}
	if fe.Field != field {
		return fmt.Sprintf("error %q names field %q, want %q", err, fe.Field, field)
	}
	if !strings.Contains(err.Error(), fmt.Sprintf("%q", field)) {
		return fmt.Sprintf("error text %q does not name %q", err, field)
	}
	return ""
}

// expect reports how err misses the case's expectation.
func expect(t *testing.T, err error, c errCase) {
	t.Helper()
	if p := problem(err, c.want, c.field); p != "" {
		t.Error(p)
	}
}

func TestDecodeEventErrors(t *testing.T) {
	valid := pack(callMap())
	tests := []errCase{
		{name: "nil input", in: nil, want: event.ErrUndecodable},
		{name: "empty input", in: []byte{}, want: event.ErrUndecodable},
		{name: "garbage", in: []byte{0xc1, 0xff, 0x00}, want: event.ErrUndecodable},
		{name: "text", in: []byte("v=1 k=call"), want: event.ErrUndecodable},
		{name: "JSON", in: []byte(`{"v":1,"k":4}`), want: event.ErrUndecodable},
		{name: "msgpack nil", in: pack(nil), want: event.ErrUndecodable},
		{name: "msgpack string", in: pack("call"), want: event.ErrUndecodable},
		{name: "msgpack integer", in: pack(4), want: event.ErrUndecodable},
		{name: "msgpack array", in: pack([]any{1, 4, tenant, run, 3}), want: event.ErrUndecodable},
		{name: "the map inside an array", in: pack([]any{callMap()}), want: event.ErrUndecodable},
		{name: "trailing byte", in: append(bytes.Clone(valid), 0x00), want: event.ErrUndecodable},
		{name: "two maps", in: append(bytes.Clone(valid), valid...), want: event.ErrUndecodable},
		{name: "truncated map", in: valid[:len(valid)-3], want: event.ErrUndecodable},
		{name: "map header only", in: valid[:1], want: event.ErrUndecodable},
		{name: "integer keys", in: pack(map[int]any{1: 1, 2: 4}), want: event.ErrUndecodable},

		{name: "seq as a string", in: callWith("seq", "3"), want: event.ErrWrongType, field: "seq"},
		{name: "seq as a float", in: callWith("seq", 3.0), want: event.ErrWrongType, field: "seq"},
		{name: "seq as a boolean", in: callWith("seq", true), want: event.ErrWrongType, field: "seq"},
		{name: "ts as a timestamp extension", in: callWith("ts", time.UnixMilli(t0)), want: event.ErrWrongType, field: "ts"},
		{name: "ts as a float", in: callWith("ts", float64(t0)), want: event.ErrWrongType, field: "ts"},
		{name: "tenant as an integer", in: callWith("tn", 7), want: event.ErrWrongType, field: "tn"},
		{name: "args as a map", in: callWith("args", map[string]any{"path": "a.go"}), want: event.ErrWrongType, field: "args"},
		{name: "err as an integer", in: callWith("err", 1), want: event.ErrWrongType, field: "err"},
		{name: "step as a string", in: callWith("step", "1"), want: event.ErrWrongType, field: "step"},
		{name: "status as an integer", in: callWith("status", 1), want: event.ErrWrongType, field: "status"},
		{name: "out as an array", in: callWith("out", []any{"a"}), want: event.ErrWrongType, field: "out"},
		{name: "kind as a name", in: callWith("k", "call"), want: event.ErrWrongType, field: "k"},
		{name: "version as a string", in: callWith("v", "1"), want: event.ErrWrongType, field: "v"},
		{name: "lease as a float", in: callWith("lease", 30000.0), want: event.ErrWrongType, field: "lease"},
		{name: "tools as a map", in: callWith("tools", map[string]any{"read_file": "{}"}), want: event.ErrWrongType, field: "tools"},
		{name: "a tool as a string", in: callWith("tools", []any{"read_file"}), want: event.ErrWrongType, field: "tools[0]"},
		{name: "a tool name as an integer", in: callWith("tools", []any{map[string]any{"name": 1, "schema": "{}"}}), want: event.ErrWrongType, field: "tools[0].name"},
		{name: "a tool kind as an integer", in: callWith("tools", []any{map[string]any{"name": "bash", "kind": 1}}), want: event.ErrWrongType, field: "tools[0].kind"},
		{name: "a document schema as a map", in: callWith("docs", []any{map[string]any{"name": "plan", "schema": map[string]any{}}}), want: event.ErrWrongType, field: "docs[0].schema"},
		{name: "outputs as a string", in: callWith("outputs", "a.go"), want: event.ErrWrongType, field: "outputs"},
		{name: "an output as an integer", in: callWith("outputs", []any{"a.go", 2}), want: event.ErrWrongType, field: "outputs[1]"},
		{name: "a round call id as a boolean", in: callWith("calls", []any{"c1", true}), want: event.ErrWrongType, field: "calls[1]"},
		{name: "a changed path as an integer", in: callWith("chg", map[string]any{"paths": []any{7}}), want: event.ErrWrongType, field: "chg.paths[0]"},
		{name: "plan as an integer", in: callWith("plan", 1), want: event.ErrWrongType, field: "plan"},
		{name: "cost as a float", in: callWith("cost", 0.25), want: event.ErrWrongType, field: "cost"},
		{name: "doc as a map", in: callWith("doc", map[string]any{"steps": []any{}}), want: event.ErrWrongType, field: "doc"},
		{name: "ref as a string", in: callWith("ref", "sha256:00"), want: event.ErrWrongType, field: "ref"},
		{name: "ref size as a string", in: callWith("ref", map[string]any{"dig": "sha256:00", "size": "12"}), want: event.ErrWrongType, field: "ref.size"},
		{name: "chg paths as a string", in: callWith("chg", map[string]any{"paths": "a.go"}), want: event.ErrWrongType, field: "chg.paths"},
		{name: "verify as a string", in: callWith("verify", "yes"), want: event.ErrWrongType, field: "verify"},
		{name: "calls as a string", in: callWith("calls", "c1"), want: event.ErrWrongType, field: "calls"},
		{name: "wait as a float", in: callWith("wait", 1.5), want: event.ErrWrongType, field: "wait"},
		{name: "gen as a string", in: callWith("gen", "7"), want: event.ErrWrongType, field: "gen"},

		{name: "kind code 0", in: callWith("k", 0), want: event.ErrInvalid, field: "k"},
		{name: "kind code 256", in: callWith("k", 256), want: event.ErrInvalid, field: "k"},
		{name: "kind code -1", in: callWith("k", -1), want: event.ErrInvalid, field: "k"},

		{name: "version 2", in: callWith("v", 2), want: event.ErrVersion, field: "v"},
		{name: "version 0", in: callWith("v", 0), want: event.ErrVersion, field: "v"},
		{name: "no version", in: callWithout("v"), want: event.ErrVersion, field: "v"},
		{name: "empty map", in: pack(map[string]any{}), want: event.ErrVersion, field: "v"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ev event.Event
			expect(t, event.DecodeEvent(tt.in, &ev), tt)
		})
	}
}

// TestDecodeEventTruncated cuts a valid event at every length: no prefix
// is an event.
// TestDecodeEventAcceptsBinAsText: msgpack libraries that predate the str
// type pack text as bin; the contract accepts it where a string is due.
func TestDecodeEventAcceptsBinAsText(t *testing.T) {
	var ev event.Event
	if err := event.DecodeEvent(callWith("tool", []byte("read_file")), &ev); err != nil || ev.Tool != "read_file" {
		t.Errorf("tool as bin: %v, tool %q", err, ev.Tool)
	}
}

func TestDecodeEventTruncated(t *testing.T) {
	m := callMap()
	m["out"] = strings.Repeat("x", 300) // a str16, so lengths as well as values are cut
	b := pack(m)
	for n := range len(b) {
		var ev event.Event
		if err := event.DecodeEvent(b[:n], &ev); !errors.Is(err, event.ErrUndecodable) {
			t.Errorf("the first %d of %d bytes: error %v, want one wrapping %q", n, len(b), err, event.ErrUndecodable)
		}
	}
}

// TestDecodeEventUnknownKeys checks that keys the contract does not define
// are ignored, whatever they hold, and that an explicit nil reads as an
// absent key.
func TestDecodeEventUnknownKeys(t *testing.T) {
	var want event.Event
	if err := event.DecodeEvent(pack(callMap()), &want); err != nil {
		t.Fatal(err)
	}
	extras := map[string]any{
		"trace":    "4bf92f3577b34da6",
		"priority": 3,
		"price":    0.25, // a float: refused in a known key, ignored in an unknown one
		"flags":    []any{"a", 1, nil},
		"meta":     map[string]any{"model": "m", "tokens": 1200},
		"blob":     []byte{0, 1, 2},
		"when":     time.UnixMilli(t0), // an extension type: not for known keys, ignored here
		"nothing":  nil,
	}
	for key, val := range extras {
		t.Run(key, func(t *testing.T) {
			var got event.Event
			if err := event.DecodeEvent(callWith(key, val), &got); err != nil {
				t.Fatalf("an unknown key %q must be ignored; got %v", key, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("decoded %+v, want %+v as without the key", got, want)
			}
		})
	}
	t.Run("all at once", func(t *testing.T) {
		m := callMap()
		maps.Copy(m, extras)
		var got event.Event
		if err := event.DecodeEvent(pack(m), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decoded %+v, want %+v", got, want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("nil known keys", func(t *testing.T) {
		m := callMap()
		for _, key := range []string{"agent", "lease", "tools", "status", "step", "plan", "path", "err", "out", "ref", "chg", "calls", "timer", "gen"} {
			m[key] = nil
		}
		var got event.Event
		if err := event.DecodeEvent(pack(m), &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("decoded %+v, want %+v: nil must read as absent", got, want)
		}
	})
}

func TestDecodeDecisionErrors(t *testing.T) {
	advise := func(key string, val any) []byte {
		m := map[string]any{
			"v": 1, "k": 3, "tn": tenant, "run": run, "seq": 13, "ts": t0 + 12000, "call": "c5", "g": "loop",
			"steer": map[string]any{"c": "avoid_repeat", "sig": sigRead, "tool": "read_file"},
			"ctr":   []any{map[string]any{"n": "repeat", "v": 3}},
		}
		if val == nil {
			delete(m, key)
		} else {
			m[key] = val
		}
		return pack(m)
	}
	tests := []errCase{
		{name: "empty input", in: nil, want: event.ErrUndecodable},
		{name: "msgpack array", in: pack([]any{1, 3}), want: event.ErrUndecodable},
		{name: "trailing byte", in: append(advise("", nil), 0xc0), want: event.ErrUndecodable},
		{name: "truncated map", in: advise("", nil)[:20], want: event.ErrUndecodable},
		{name: "version 2", in: advise("v", 2), want: event.ErrVersion, field: "v"},
		{name: "no version", in: advise("v", nil), want: event.ErrVersion, field: "v"},
		{name: "kind code 0", in: advise("k", 0), want: event.ErrInvalid, field: "k"},
		{name: "kind code 1000", in: advise("k", 1000), want: event.ErrInvalid, field: "k"},
		{name: "seq as a string", in: advise("seq", "13"), want: event.ErrWrongType, field: "seq"},
		{name: "reason as an integer", in: advise("rsn", 1), want: event.ErrWrongType, field: "rsn"},
		{name: "steer as a string", in: advise("steer", "avoid_repeat"), want: event.ErrWrongType, field: "steer"},
		{name: "counters as a map", in: advise("ctr", map[string]any{"repeat": 3}), want: event.ErrWrongType, field: "ctr"},
		{name: "steer constraint as an integer", in: advise("steer", map[string]any{"c": 1}), want: event.ErrWrongType, field: "steer.c"},
		{name: "counter value as a string", in: advise("ctr", []any{map[string]any{"n": "repeat", "v": "3"}}), want: event.ErrWrongType, field: "ctr[0].v"},
		{name: "counter as a string", in: advise("ctr", []any{"repeat"}), want: event.ErrWrongType, field: "ctr[0]"},
		{name: "rule as an integer", in: advise("rule", 1), want: event.ErrWrongType, field: "rule"},
		{name: "args as a map", in: advise("args", map[string]any{"path": "a.go"}), want: event.ErrWrongType, field: "args"},
		{name: "diag path as an integer", in: advise("diag", []any{map[string]any{"path": 0, "msg": "m"}}), want: event.ErrWrongType, field: "diag[0].path"},
		{name: "near as a string", in: advise("near", "read_file"), want: event.ErrWrongType, field: "near"},
		{name: "level as a string", in: advise("level", "85"), want: event.ErrWrongType, field: "level"},
		{name: "ref digest as an integer", in: advise("ref", map[string]any{"dig": 1, "size": 2}), want: event.ErrWrongType, field: "ref.dig"},
		{name: "trunc as an array", in: advise("trunc", []any{40, 4000}), want: event.ErrWrongType, field: "trunc"},
		{name: "trunc has_more as a string", in: advise("trunc", map[string]any{"has_more": "true"}), want: event.ErrWrongType, field: "trunc.has_more"},
		{name: "missing as a map", in: advise("missing", map[string]any{"c1": true}), want: event.ErrWrongType, field: "missing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d event.Decision
			expect(t, event.DecodeDecision(tt.in, &d), tt)
		})
	}
}

// TestDecodeDecisionUnknownKind checks that a decision kind newer than this
// package decodes, so an agent can recognise it and ignore it. 12 is the
// first code this version does not define.
func TestDecodeDecisionUnknownKind(t *testing.T) {
	for _, k := range []int{12, 13, 255} {
		b := pack(map[string]any{"v": 1, "k": k, "tn": tenant, "run": run, "seq": 3, "ts": t0, "call": "c1", "future": true})
		var d event.Decision
		if err := event.DecodeDecision(b, &d); err != nil {
			t.Fatalf("a decision of an unknown kind must decode; got %v", err)
		}
		if int(d.Kind) != k || d.Kind.Valid() || d.Kind.IsVerdict() || d.Kind.Token() != "" {
			t.Errorf("kind %v: Valid %t, IsVerdict %t, Token %q; want %d, false, false, \"\"", d.Kind, d.Kind.Valid(), d.Kind.IsVerdict(), d.Kind.Token(), k)
		}
	}
}

// TestKinds pins each kind's code, name, subject token and, for
// decisions, whether it is a verdict: docs/wire.md §3.1 and §4.1.
func TestKinds(t *testing.T) {
	events := []struct {
		k           event.Kind
		name, token string
	}{
		{1, "run_start", "run"}, {2, "run_end", "run"}, {3, "step", "step"}, {4, "call", "call"},
		{5, "result", "result"}, {6, "heartbeat", "hb"}, {7, "timer", "timer"}, {8, "round", "round"},
		{9, "turn", "turn"}, {10, "resume", "resume"}, {11, "compaction", "compact"},
		{0, "kind(0)", ""}, {12, "kind(12)", ""},
	}
	for _, tt := range events {
		if tt.k.String() != tt.name || tt.k.Token() != tt.token || tt.k.Valid() != (tt.token != "") {
			t.Errorf("event kind %d: %q, token %q, valid %t; want %q, %q", uint8(tt.k), tt.k, tt.k.Token(), tt.k.Valid(), tt.name, tt.token)
		}
	}
	decisions := []struct {
		k           event.DecisionKind
		name, token string
		verdict     bool
	}{
		{event.Allow, "allow", "verdict", true},
		{event.Repair, "repair", "verdict", true},
		{event.Advise, "advise", "advice", false},
		{event.Reject, "reject", "verdict", true},
		{event.Defer, "defer", "verdict", true},
		{event.Stop, "stop", "stop", true},
		{event.Stale, "stale", "verdict", true},
		{event.Pressure, "pressure", "pressure", false},
		{event.Output, "output", "output", false},
		{event.Settled, "settled", "settled", false},
		{event.Resumed, "resumed", "resumed", false},
		{0, "decision(0)", "", false},
		{12, "decision(12)", "", false},
	}
	for i, tt := range decisions {
		if i < 11 && int(tt.k) != i+1 {
			t.Errorf("%s has code %d, want %d", tt.name, uint8(tt.k), i+1)
		}
		if tt.k.String() != tt.name || tt.k.Token() != tt.token || tt.k.IsVerdict() != tt.verdict || tt.k.Valid() != (tt.token != "") {
			t.Errorf("decision kind %d: %q, token %q, verdict %t; want %q, %q, %t", uint8(tt.k), tt.k, tt.k.Token(), tt.k.IsVerdict(), tt.name, tt.token, tt.verdict)
		}
	}
}

// TestDecodeReplaces checks that decoding into a used value leaves nothing
// of the old one.
func TestDecodeReplaces(t *testing.T) {
	ev := event.Event{
		Agent: "old", Lease: 5000, Tools: []event.Schema{{Name: "x"}}, Status: event.StatusFailed, Step: 9, Cost: 3,
		Err: true, Out: "old", Ref: &event.OutputRef{Size: 1}, Changes: &event.Changes{Files: 1}, Calls: []string{"c9"}, Timer: "lease", Gen: 2,
	}
	if err := event.DecodeEvent(pack(callMap()), &ev); err != nil {
		t.Fatal(err)
	}
	var fresh event.Event
	if err := event.DecodeEvent(pack(callMap()), &fresh); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ev, fresh) {
		t.Errorf("decoded %+v: fields of the previous value survived", ev)
	}
	d := event.Decision{
		Guard: "old", Reason: event.ReasonSystemError, Rule: "r", Steer: &event.Steer{Kind: event.SteerOverride}, Counts: []event.Counter{{Name: "x"}},
		Args: "{}", Diags: []event.Diag{{Path: "/a"}}, Level: 70, Ref: &event.OutputRef{Size: 1}, Trunc: &event.Truncation{HasMore: true}, Calls: []string{"c1"},
	}
	if err := event.DecodeDecision(event.AppendDecision(nil, &event.Decision{V: 1, Kind: event.Allow, Tenant: tenant, Run: run, Seq: 3, TS: t0}), &d); err != nil {
		t.Fatal(err)
	}
	if wantD := (event.Decision{V: 1, Kind: event.Allow, Tenant: tenant, Run: run, Seq: 3, TS: t0}); !reflect.DeepEqual(d, wantD) {
		t.Errorf("decoded %+v: fields of the previous value survived", d)
	}
}

// TestAppendAppends checks that the encoders append to dst and give equal
// bytes for equal values.
func TestAppendAppends(t *testing.T) {
	e := ev(event.KindCall, 3)
	e.Call, e.Tool = "c1", "read_file"
	one := event.AppendEvent(nil, &e)
	prefix := []byte("prefix")
	two := event.AppendEvent(bytes.Clone(prefix), &e)
	if !bytes.Equal(two, append(prefix, one...)) {
		t.Errorf("AppendEvent with a prefix gives %x, want the prefix then %x", two, one)
	}
	if again := event.AppendEvent(nil, &e); !bytes.Equal(again, one) {
		t.Errorf("encoding the same event twice gives %x and %x", one, again)
	}
}

func TestValidate(t *testing.T) {
	base := map[event.Kind]event.Event{}
	for k := event.Kind(1); k.Valid(); k++ {
		e := ev(k, 3)
		switch k {
		case event.KindRunStart:
			e.Agent = "coder"
		case event.KindRunEnd:
			e.Status = event.StatusCompleted
		case event.KindStep:
			e.Step = 2
		case event.KindCall:
			e.Call, e.Tool, e.Args = "c1", "read_file", `{"path":"a.go"}`
		case event.KindResult:
			e.Call, e.Out = "c1", "package main"
		case event.KindTimer:
			e.Seq, e.Timer, e.Gen = 0, "lease", 2
		case event.KindRound:
			e.Calls, e.Wait = []string{"c1", "c2"}, 30000
		case event.KindTurn:
			e.Turn = 2
		case event.KindResume:
			e.By, e.Why = "ops-alice", "the build server is back"
		case event.KindCompact:
			e.Context, e.Window = 40000, 200000
		}
		base[k] = e
	}
	if len(base) != 11 {
		t.Fatalf("%d event kinds; this table knows 11", len(base))
	}
	dig := event.Digest([]byte("package main"))
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprint(prefix, i)
		}
		return out
	}
	schemas := func(names ...string) []event.Schema {
		out := make([]event.Schema, len(names))
		for i, n := range names {
			out[i] = event.Schema{Name: n, Schema: `{"type":"object"}`}
		}
		return out
	}
	type tc struct {
		name   string
		kind   event.Kind
		mutate func(*event.Event)
		field  string // the field the error names; "" if the event is valid
	}
	tests := []tc{
		{name: "kind 0", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Kind = 0 }, field: "k"},
		{name: "kind 12, the first unknown to this version", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Kind = 12 }, field: "k"},
		{name: "kind 255", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Kind = 255 }, field: "k"},
		{name: "seq 0 (missing)", kind: event.KindStep, mutate: func(e *event.Event) { e.Seq = 0 }, field: "seq"},
		{name: "negative seq", kind: event.KindStep, mutate: func(e *event.Event) { e.Seq = -1 }, field: "seq"},
		{name: "seq 1", kind: event.KindStep, mutate: func(e *event.Event) { e.Seq = 1 }},
		{name: "ts 0 (missing)", kind: event.KindStep, mutate: func(e *event.Event) { e.TS = 0 }, field: "ts"},
		{name: "negative ts", kind: event.KindStep, mutate: func(e *event.Event) { e.TS = -1 }, field: "ts"},
		{name: "negative step", kind: event.KindStep, mutate: func(e *event.Event) { e.Step = -1 }, field: "step"},
		{name: "step 0", kind: event.KindStep, mutate: func(e *event.Event) { e.Step = 0 }},
		{name: "call without a tool", kind: event.KindCall, mutate: func(e *event.Event) { e.Tool = "" }, field: "tool"},
		{name: "tool of 257 bytes", kind: event.KindCall, mutate: func(e *event.Event) { e.Tool = strings.Repeat("t", event.MaxToolLen+1) }, field: "tool"},
		{name: "tool of 256 bytes", kind: event.KindCall, mutate: func(e *event.Event) { e.Tool = strings.Repeat("t", event.MaxToolLen) }},
		{name: "tool that is not UTF-8", kind: event.KindCall, mutate: func(e *event.Event) { e.Tool = "read\xfffile" }, field: "tool"},
		{name: "tool with a newline", kind: event.KindCall, mutate: func(e *event.Event) { e.Tool = "read\nfile" }, field: "tool"},
		{name: "call without a call id", kind: event.KindCall, mutate: func(e *event.Event) { e.Call = "" }, field: "call"},
		{name: "call id with a dot", kind: event.KindCall, mutate: func(e *event.Event) { e.Call = "c.1" }, field: "call"},
		{name: "call without args or path", kind: event.KindCall, mutate: func(e *event.Event) { e.Args, e.Path = "", "" }},
		{name: "args that are not JSON", kind: event.KindCall, mutate: func(e *event.Event) { e.Args = "{path: a.go" }},
		{name: "result without a call id", kind: event.KindResult, mutate: func(e *event.Event) { e.Call = "" }, field: "call"},
		{name: "result call id with a space", kind: event.KindResult, mutate: func(e *event.Event) { e.Call = "c 1" }, field: "call"},
		{name: "result without a tool", kind: event.KindResult, mutate: func(e *event.Event) { e.Tool = "" }},
		{name: "run_end without a status", kind: event.KindRunEnd, mutate: func(e *event.Event) { e.Status = "" }, field: "status"},
		{name: "run_end with a bad status", kind: event.KindRunEnd, mutate: func(e *event.Event) { e.Status = "done" }, field: "status"},
		{name: "run_end with a status in capitals", kind: event.KindRunEnd, mutate: func(e *event.Event) { e.Status = "Completed" }, field: "status"},
		{name: "run_end failed", kind: event.KindRunEnd, mutate: func(e *event.Event) { e.Status = event.StatusFailed }},
		{name: "run_end cancelled", kind: event.KindRunEnd, mutate: func(e *event.Event) { e.Status = event.StatusCancelled }},
		{name: "a status on a step is not checked", kind: event.KindStep, mutate: func(e *event.Event) { e.Status = "done" }},
		{name: "a negative step on a call is not checked", kind: event.KindCall, mutate: func(e *event.Event) { e.Step = -1 }},

		// Run start.
		{name: "lease 1000", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = event.MinLease }},
		{name: "lease 0, no lease", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = 0 }},
		{name: "lease of a day", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = 86_400_000 }},
		{name: "lease 999", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = event.MinLease - 1 }, field: "lease"},
		{name: "lease 1", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = 1 }, field: "lease"},
		{name: "negative lease", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Lease = -30000 }, field: "lease"},
		{name: "ws absolute", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "/work/acme" }},
		{name: "ws a Windows drive path", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = `C:\work\acme` }},
		{name: "ws a Windows drive path with slashes", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "c:/work" }},
		{name: "ws relative", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "work/acme" }, field: "ws"},
		{name: "ws relative to a drive", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "C:work" }, field: "ws"},
		{name: "ws a drive only", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "C:" }, field: "ws"},
		{name: "ws starting with a tilde", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "~/work" }, field: "ws"},
		{name: "ws a UNC path", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = `\\server\share` }, field: "ws"},
		{name: "ws with a newline", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "/work\n" }, field: "ws"},
		{name: "ws with a non-ASCII drive byte", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Workspace = "\xc3:/x" }, field: "ws"},
		{name: "pattern is free text", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Pattern = "edit and verify" }},
		{name: "two tools", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas("read_file", "edit_file") }},
		{name: "256 tools", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas(names("t", event.MaxDeclared)...) }},
		{name: "257 tools", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas(names("t", event.MaxDeclared+1)...) }, field: "tools"},
		{name: "a tool without a name", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas("read_file", "") }, field: "tools[1].name"},
		{name: "a tool declared twice", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas("read_file", "edit_file", "read_file") }, field: "tools[2].name"},
		{name: "a tool name with a newline", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas("read\nfile") }, field: "tools[0].name"},
		{name: "a tool name that is not UTF-8", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas("read\xfffile") }, field: "tools[0].name"},
		{name: "a tool name of 257 bytes", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = schemas(strings.Repeat("t", event.MaxToolLen+1)) }, field: "tools[0].name"},
		{name: "a tool's schema is not checked", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Tools = []event.Schema{{Name: "read_file", Schema: "{not json"}} }},
		{name: "257 document schemas", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Docs = schemas(names("d", event.MaxDeclared+1)...) }, field: "docs"},
		{name: "a document schema declared twice", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Docs = schemas("plan", "plan") }, field: "docs[1].name"},
		{name: "a document schema without a name", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Docs = schemas("") }, field: "docs[0].name"},
		{name: "a document schema named like a tool", kind: event.KindRunStart, mutate: func(e *event.Event) {
			e.Tools, e.Docs = schemas("plan"), schemas("plan")
		}},
		{name: "outputs", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = []string{"src/main.go", "docs/naïve.md"} }},
		{name: "256 outputs", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = names("o", event.MaxDeclared) }},
		{name: "257 outputs", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = names("o", event.MaxDeclared+1) }, field: "outputs"},
		{name: "an empty output path", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = []string{""} }, field: "outputs[0]"},
		{name: "an output path with a newline", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = []string{"a.go", "b\n.go"} }, field: "outputs[1]"},
		{name: "an output path that is not UTF-8", kind: event.KindRunStart, mutate: func(e *event.Event) { e.Outputs = []string{"a\xff.go"} }, field: "outputs[0]"},
		{name: "run start rules on a heartbeat are not checked", kind: event.KindHeartbeat, mutate: func(e *event.Event) {
			e.Lease, e.Workspace, e.Tools, e.Outputs = 1, "relative", schemas("", ""), []string{""}
		}},

		// Step.
		{name: "every step field set", kind: event.KindStep, mutate: func(e *event.Event) {
			e.Turn, e.TokensIn, e.TokensOut, e.Cost, e.Context, e.Window = 1, 12000, 350, 41250, 12350, 200000
			e.Planning, e.Doc, e.DocSchema = true, `{"steps":[]}`, "plan"
		}},
		{name: "negative turn", kind: event.KindStep, mutate: func(e *event.Event) { e.Turn = -1 }, field: "turn"},
		{name: "negative tin", kind: event.KindStep, mutate: func(e *event.Event) { e.TokensIn = -1 }, field: "tin"},
		{name: "negative tout", kind: event.KindStep, mutate: func(e *event.Event) { e.TokensOut = -1 }, field: "tout"},
		{name: "negative cost", kind: event.KindStep, mutate: func(e *event.Event) { e.Cost = -1 }, field: "cost"},
		{name: "negative ctx", kind: event.KindStep, mutate: func(e *event.Event) { e.Context = -1 }, field: "ctx"},
		{name: "negative win", kind: event.KindStep, mutate: func(e *event.Event) { e.Window = -1 }, field: "win"},
		{name: "a schema without a doc", kind: event.KindStep, mutate: func(e *event.Event) { e.DocSchema = "plan" }, field: "doc"},
		{name: "a doc without a schema", kind: event.KindStep, mutate: func(e *event.Event) { e.Doc = `{"steps":[]}` }},
		{name: "a doc that is not JSON is not checked", kind: event.KindStep, mutate: func(e *event.Event) { e.Doc, e.DocSchema = "{steps", "plan" }},
		{name: "the schema name is not checked against run start", kind: event.KindStep, mutate: func(e *event.Event) { e.Doc, e.DocSchema = "{}", "undeclared" }},

		// Result.
		{name: "a result by reference", kind: event.KindResult, mutate: func(e *event.Event) {
			e.Out, e.Ref = "", &event.OutputRef{Digest: dig, Size: 12}
		}},
		{name: "ref and out", kind: event.KindResult, mutate: func(e *event.Event) { e.Ref = &event.OutputRef{Digest: dig, Size: 12} }, field: "ref"},
		{name: "ref without a digest", kind: event.KindResult, mutate: func(e *event.Event) { e.Out, e.Ref = "", &event.OutputRef{Size: 12} }, field: "ref.dig"},
		{name: "ref digest in upper case", kind: event.KindResult, mutate: func(e *event.Event) {
			e.Out, e.Ref = "", &event.OutputRef{Digest: "sha256:" + strings.ToUpper(dig[7:]), Size: 12}
		}, field: "ref.dig"},
		{name: "ref digest without its prefix", kind: event.KindResult, mutate: func(e *event.Event) { e.Out, e.Ref = "", &event.OutputRef{Digest: dig[7:], Size: 12} }, field: "ref.dig"},
		{name: "ref digest of 63 hex digits", kind: event.KindResult, mutate: func(e *event.Event) { e.Out, e.Ref = "", &event.OutputRef{Digest: dig[:70], Size: 12} }, field: "ref.dig"},
		{name: "ref digest with a trailing newline", kind: event.KindResult, mutate: func(e *event.Event) {
			e.Out, e.Ref = "", &event.OutputRef{Digest: dig + "\n", Size: 12}
		}, field: "ref.dig"},
		{name: "ref of a negative size", kind: event.KindResult, mutate: func(e *event.Event) { e.Out, e.Ref = "", &event.OutputRef{Digest: dig, Size: -1} }, field: "ref.size"},
		{name: "ref of size 0", kind: event.KindResult, mutate: func(e *event.Event) { e.Out, e.Ref = "", &event.OutputRef{Digest: event.Digest(nil)} }},
		{name: "exit code, verify and changes", kind: event.KindResult, mutate: func(e *event.Event) {
			e.Exit, e.Verify, e.Changes = 2, true, &event.Changes{Files: 1, Lines: 3, Hunks: 1, Paths: []string{"a.go"}}
		}},
		{name: "a negative exit code", kind: event.KindResult, mutate: func(e *event.Event) { e.Exit = -9 }},
		{name: "negative files changed", kind: event.KindResult, mutate: func(e *event.Event) { e.Changes = &event.Changes{Files: -1} }, field: "chg"},
		{name: "negative lines changed", kind: event.KindResult, mutate: func(e *event.Event) { e.Changes = &event.Changes{Lines: -1} }, field: "chg"},
		{name: "negative hunks changed", kind: event.KindResult, mutate: func(e *event.Event) { e.Changes = &event.Changes{Hunks: -1} }, field: "chg"},
		{name: "an empty chg", kind: event.KindResult, mutate: func(e *event.Event) { e.Changes = &event.Changes{} }},
		{name: "result rules on a call are not checked", kind: event.KindCall, mutate: func(e *event.Event) {
			e.Out, e.Ref, e.Changes = "x", &event.OutputRef{Digest: "md5"}, &event.Changes{Files: -1}
		}},

		// Round.
		{name: "a round of one call", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = []string{"c1"} }},
		{name: "a round of 256 calls", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = names("c", event.MaxRoundCalls) }},
		{name: "a round of 257 calls", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = names("c", event.MaxRoundCalls+1) }, field: "calls"},
		{name: "a round of no calls", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = nil }, field: "calls"},
		{name: "a call listed twice", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = []string{"c1", "c1"} }, field: "calls[1]"},
		{name: "a call id with a dot", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = []string{"c1", "c.2"} }, field: "calls[1]"},
		{name: "an empty call id", kind: event.KindRound, mutate: func(e *event.Event) { e.Calls = []string{""} }, field: "calls[0]"},
		{name: "wait 0, no deadline", kind: event.KindRound, mutate: func(e *event.Event) { e.Wait = 0 }},
		{name: "a negative wait", kind: event.KindRound, mutate: func(e *event.Event) { e.Wait = -1 }, field: "wait"},
		{name: "a turn without a number", kind: event.KindTurn, mutate: func(e *event.Event) { e.Turn = 0 }},
		{name: "a negative turn", kind: event.KindTurn, mutate: func(e *event.Event) { e.Turn = -1 }, field: "turn"},
		{name: "a resume without by", kind: event.KindResume, mutate: func(e *event.Event) { e.By = "" }, field: "by"},
		{name: "a resume by a name with a newline", kind: event.KindResume, mutate: func(e *event.Event) { e.By = "ops\n" }, field: "by"},
		{name: "a resume without why", kind: event.KindResume, mutate: func(e *event.Event) { e.Why = "" }, field: "why"},
		{name: "a why of 1024 bytes", kind: event.KindResume, mutate: func(e *event.Event) { e.Why = strings.Repeat("w", event.MaxWhyLen) }},
		{name: "a why of 1025 bytes", kind: event.KindResume, mutate: func(e *event.Event) { e.Why = strings.Repeat("w", event.MaxWhyLen+1) }, field: "why"},
		{name: "a compaction without usage", kind: event.KindCompact, mutate: func(e *event.Event) { e.Context, e.Window = 0, 0 }},
		{name: "a negative ctx on a compaction", kind: event.KindCompact, mutate: func(e *event.Event) { e.Context = -1 }, field: "ctx"},
		{name: "a text digest of 256 bytes", kind: event.KindStep, mutate: func(e *event.Event) { e.TextDig = strings.Repeat("d", event.MaxDigestLen) }},
		{name: "a text digest of 257 bytes", kind: event.KindStep, mutate: func(e *event.Event) { e.TextDig = strings.Repeat("d", event.MaxDigestLen+1) }, field: "tdig"},
		{name: "a text digest with a tab", kind: event.KindStep, mutate: func(e *event.Event) { e.TextDig = "sha256:\tab" }, field: "tdig"},
		{name: "round rules on a step are not checked", kind: event.KindStep, mutate: func(e *event.Event) { e.Calls, e.Wait = []string{"c1", "c1"}, -1 }},

		// Timer.
		{name: "a timer with seq 3", kind: event.KindTimer, mutate: func(e *event.Event) { e.Seq = 3 }, field: "seq"},
		{name: "a timer with seq 1", kind: event.KindTimer, mutate: func(e *event.Event) { e.Seq = 1 }, field: "seq"},
		{name: "a timer with a negative seq", kind: event.KindTimer, mutate: func(e *event.Event) { e.Seq = -1 }, field: "seq"},
		{name: "a timer without a name", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = "" }, field: "timer"},
		{name: "a timer name with a newline", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = "lease\n" }, field: "timer"},
		{name: "a timer name of 129 bytes", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = strings.Repeat("t", event.MaxIDLen+1) }, field: "timer"},
		{name: "a timer name of 128 bytes", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = strings.Repeat("t", event.MaxIDLen) }},
		{name: "a timer name with a dot", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = "round.7" }, field: "timer"},
		{name: "a round timer", kind: event.KindTimer, mutate: func(e *event.Event) { e.Timer = "round" }},
		{name: "a timer with gen 0", kind: event.KindTimer, mutate: func(e *event.Event) { e.Gen = 0 }, field: "gen"},
		{name: "a timer with a negative gen", kind: event.KindTimer, mutate: func(e *event.Event) { e.Gen = -1 }, field: "gen"},
		{name: "a timer without ts", kind: event.KindTimer, mutate: func(e *event.Event) { e.TS = 0 }, field: "ts"},
		{name: "a timer with a bad tenant", kind: event.KindTimer, mutate: func(e *event.Event) { e.Tenant = "a.b" }, field: "tn"},
		{name: "seq 0 is only for timers", kind: event.KindRound, mutate: func(e *event.Event) { e.Seq = 0 }, field: "seq"},
		{name: "timer rules on a heartbeat are not checked", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Timer, e.Gen = "", -1 }},
	}
	for k := event.Kind(1); k.Valid(); k++ {
		tests = append(tests, tc{name: "valid " + k.String(), kind: k})
	}
	// The id rules, for each id field: event.CheckID.
	ids := []struct {
		name, id string
		ok       bool
	}{
		{"simple", "acme", true},
		{"punctuation", "run-42_a:b/c@d", true},
		{"non-ASCII", "müller-örn", true},
		{"128 bytes", strings.Repeat("x", event.MaxIDLen), true},
		{"empty", "", false},
		{"129 bytes", strings.Repeat("x", event.MaxIDLen+1), false},
		{"129 bytes of 2-byte runes", strings.Repeat("x", 1) + strings.Repeat("é", 64), false},
		{"not UTF-8", "a\xffb", false},
		{"a dot", "a.b", false},
		{"a star", "a*", false},
		{"a greater-than sign", "a>b", false},
		{"a space", "a b", false},
		{"a tab", "a\tb", false},
		{"a newline", "a\nb", false},
		{"a no-break space", "a\u00a0b", false},
		{"a line separator", "a\u2028b", false},
		{"an ideographic space", "a\u3000b", false},
		{"a NUL", "a\x00b", false},
		{"a DEL", "a\x7fb", false},
		{"a C1 control", "a\u0085b", false},
	}
	for _, id := range ids {
		for _, f := range []struct {
			field string
			kind  event.Kind
			set   func(*event.Event, string)
		}{
			{"tn", event.KindHeartbeat, func(e *event.Event, s string) { e.Tenant = s }},
			{"run", event.KindHeartbeat, func(e *event.Event, s string) { e.Run = s }},
			{"call", event.KindCall, func(e *event.Event, s string) { e.Call = s }},
		} {
			c := tc{name: f.field + " " + id.name, kind: f.kind, mutate: func(e *event.Event) { f.set(e, id.id) }}
			if !id.ok {
				c.field = f.field
			}
			tests = append(tests, c)
		}
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := base[tt.kind]
			if tt.mutate != nil {
				tt.mutate(&e)
			}
			err := e.Validate()
			if tt.field == "" {
				if err != nil {
					t.Errorf("Validate(%+v) = %v, want nil", e, err)
				}
				return
			}
			expect(t, err, errCase{want: event.ErrInvalid, field: tt.field})
		})
	}
}

// TestFieldErrorText checks what a *event.FieldError says and unwraps to.
func TestFieldErrorText(t *testing.T) {
	e := ev(event.KindCall, 0)
	e.Call, e.Tool = "c1", "read_file"
	err := e.Validate()
	var fe *event.FieldError
	if !errors.As(err, &fe) {
		t.Fatalf("Validate = %v, want a *event.FieldError", err)
	}
	if fe.Field != "seq" || fe.Msg == "" || !errors.Is(fe.Unwrap(), event.ErrInvalid) {
		t.Errorf("got %#v, want field seq, a message and ErrInvalid", fe)
	}
	if want := `event: invalid field: "seq": `; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error text %q, want it to start with %q", err, want)
	}
	if errors.Unwrap(err) != event.ErrInvalid {
		t.Errorf("errors.Unwrap = %v, want ErrInvalid", errors.Unwrap(err))
	}
}
