package event_test

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
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
		"cost":     0.25,
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
			if got != want {
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
		if got != want {
			t.Errorf("decoded %+v, want %+v", got, want)
		}
		if err := got.Validate(); err != nil {
			t.Errorf("Validate: %v", err)
		}
	})
	t.Run("nil known keys", func(t *testing.T) {
		m := callMap()
		for _, key := range []string{"agent", "status", "step", "path", "err", "out"} {
			m[key] = nil
		}
		var got event.Event
		if err := event.DecodeEvent(pack(m), &got); err != nil {
			t.Fatal(err)
		}
		if got != want {
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d event.Decision
			expect(t, event.DecodeDecision(tt.in, &d), tt)
		})
	}
}

// TestDecodeDecisionUnknownKind checks that a decision kind newer than this
// package decodes, so an agent can recognise it and ignore it.
func TestDecodeDecisionUnknownKind(t *testing.T) {
	b := pack(map[string]any{"v": 1, "k": 7, "tn": tenant, "run": run, "seq": 3, "ts": t0, "call": "c1", "future": true})
	var d event.Decision
	if err := event.DecodeDecision(b, &d); err != nil {
		t.Fatalf("a decision of an unknown kind must decode; got %v", err)
	}
	if d.Kind != 7 || d.Kind.Valid() || d.Kind.IsVerdict() || d.Kind.Token() != "" {
		t.Errorf("kind %v: Valid %t, IsVerdict %t, Token %q; want 7, false, false, \"\"", d.Kind, d.Kind.Valid(), d.Kind.IsVerdict(), d.Kind.Token())
	}
}

// TestDecodeReplaces checks that decoding into a used value leaves nothing
// of the old one.
func TestDecodeReplaces(t *testing.T) {
	ev := event.Event{Agent: "old", Status: event.StatusFailed, Step: 9, Err: true, Out: "old"}
	if err := event.DecodeEvent(pack(callMap()), &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Agent != "" || ev.Status != "" || ev.Step != 0 || ev.Err || ev.Out != "" {
		t.Errorf("decoded %+v: fields of the previous value survived", ev)
	}
	d := event.Decision{Guard: "old", Reason: event.ReasonSystemError, Steer: &event.Steer{Kind: event.SteerOverride}, Counts: []event.Counter{{Name: "x"}}}
	if err := event.DecodeDecision(event.AppendDecision(nil, &event.Decision{V: 1, Kind: event.Allow, Tenant: tenant, Run: run, Seq: 3, TS: t0}), &d); err != nil {
		t.Fatal(err)
	}
	if d.Guard != "" || d.Reason != "" || d.Steer != nil || d.Counts != nil {
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
		}
		base[k] = e
	}
	type tc struct {
		name   string
		kind   event.Kind
		mutate func(*event.Event)
		field  string // the field the error names; "" if the event is valid
	}
	tests := []tc{
		{name: "kind 0", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Kind = 0 }, field: "k"},
		{name: "kind 7, unknown to this version", kind: event.KindHeartbeat, mutate: func(e *event.Event) { e.Kind = 7 }, field: "k"},
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
