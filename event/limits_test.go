package event_test

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
)

// limitCases are events at and just over each limit on what a sender
// controls: field is the field the error names, "" for an event within
// the limits.
func limitCases() []struct {
	name   string
	ev     event.Event
	field  string
	reason error
} {
	deep := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	long := func(n int) string { return "/" + strings.Repeat("a", n-1) }
	paths := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", size, i)
		}
		return out
	}
	start := ev(event.KindRunStart, 1)
	call := ev(event.KindCall, 2)
	call.Call, call.Tool = "c1", "bash"
	result := ev(event.KindResult, 3)
	result.Call = "c1"
	step := ev(event.KindStep, 4)
	round := ev(event.KindRound, 5)
	round.Calls = []string{"c1"}
	with := func(e event.Event, f func(*event.Event)) event.Event { f(&e); return e }
	type tc = struct {
		name   string
		ev     event.Event
		field  string
		reason error
	}
	return []tc{
		{"ts at the end of the year 9999", with(call, func(e *event.Event) { e.TS = event.MaxTS }), "", nil},
		{"ts after the year 9999", with(call, func(e *event.Event) { e.TS = event.MaxTS + 1 }), "ts", event.ErrLimit},
		{"args nested 64 deep", with(call, func(e *event.Event) { e.Args = `{"a":` + deep(63) + `}` }), "", nil},
		{"args nested 65 deep", with(call, func(e *event.Event) { e.Args = `{"a":` + deep(64) + `}` }), "args", event.ErrLimit},
		{"invalid JSON args nested 65 deep", with(call, func(e *event.Event) { e.Args = strings.Repeat("{[", 33) }), "args", event.ErrLimit},
		{"brackets in a JSON string do not nest", with(call, func(e *event.Event) { e.Args = `{"command":"` + strings.Repeat("[", 1000) + `"}` }), "", nil},
		{"a call's path of 4096 bytes", with(call, func(e *event.Event) { e.Path = long(event.MaxPathLen) }), "", nil},
		{"a call's path of 4097 bytes", with(call, func(e *event.Event) { e.Path = long(event.MaxPathLen + 1) }), "path", event.ErrLimit},
		{"a result's path of 4097 bytes", with(result, func(e *event.Event) { e.Path = long(event.MaxPathLen + 1) }), "path", event.ErrLimit},
		{"a result's args nested 65 deep", with(result, func(e *event.Event) { e.Args = deep(65) }), "args", event.ErrLimit},
		{"a result's tool of 257 bytes", with(result, func(e *event.Event) { e.Tool = strings.Repeat("t", event.MaxToolLen+1) }), "tool", event.ErrLimit},
		{"1024 changed paths of 4096 bytes", with(result, func(e *event.Event) {
			e.Changes = &event.Changes{Paths: paths(event.MaxChangedPaths, event.MaxPathLen)}
		}), "", nil},
		{"1025 changed paths", with(result, func(e *event.Event) { e.Changes = &event.Changes{Paths: paths(event.MaxChangedPaths+1, 1)} }), "chg.paths", event.ErrLimit},
		{"a changed path of 4097 bytes", with(result, func(e *event.Event) { e.Changes = &event.Changes{Paths: []string{"a", long(event.MaxPathLen + 1)}} }), "chg.paths[1]", event.ErrLimit},
		{"a doc nested 65 deep", with(step, func(e *event.Event) { e.Doc = deep(65) }), "doc", event.ErrLimit},
		{"a doc's schema name of 257 bytes", with(step, func(e *event.Event) { e.Doc, e.DocSchema = "{}", strings.Repeat("s", event.MaxToolLen+1) }), "schema", event.ErrLimit},
		{"a round's wait of a week", with(round, func(e *event.Event) { e.Wait = event.MaxDuration }), "", nil},
		{"a round's wait over a week", with(round, func(e *event.Event) { e.Wait = event.MaxDuration + 1 }), "wait", event.ErrLimit},
		{"a round's wait that overflows a time.Duration", with(round, func(e *event.Event) { e.Wait = 1 << 62 }), "wait", event.ErrLimit},
		{"257 calls in a round", with(round, func(e *event.Event) { e.Calls = paths(event.MaxRoundCalls+1, 4) }), "calls", event.ErrLimit},
		{"a lease of a week", with(start, func(e *event.Event) { e.Lease = event.MaxDuration }), "", nil},
		{"a lease over a week", with(start, func(e *event.Event) { e.Lease = event.MaxDuration + 1 }), "lease", event.ErrLimit},
		{"an agent of 257 bytes", with(start, func(e *event.Event) { e.Agent = strings.Repeat("a", event.MaxToolLen+1) }), "agent", event.ErrLimit},
		{"a pattern of 257 bytes", with(start, func(e *event.Event) { e.Pattern = strings.Repeat("p", event.MaxToolLen+1) }), "pattern", event.ErrLimit},
		{"a workspace of 4097 bytes", with(start, func(e *event.Event) { e.Workspace = long(event.MaxPathLen + 1) }), "ws", event.ErrLimit},
		{"an output of 4097 bytes", with(start, func(e *event.Event) { e.Outputs = []string{"a", long(event.MaxPathLen + 1)} }), "outputs[1]", event.ErrLimit},
		{"257 outputs", with(start, func(e *event.Event) { e.Outputs = paths(event.MaxDeclared+1, 1) }), "outputs", event.ErrLimit},
		{"257 tools", with(start, func(e *event.Event) {
			for _, n := range paths(event.MaxDeclared+1, 3) {
				e.Tools = append(e.Tools, event.Schema{Name: n})
			}
		}), "tools", event.ErrLimit},
		{"a tool's name of 257 bytes", with(start, func(e *event.Event) { e.Tools = []event.Schema{{Name: strings.Repeat("t", event.MaxToolLen+1)}} }), "tools[0].name", event.ErrLimit},
		{"a tool's schema nested 65 deep", with(start, func(e *event.Event) {
			e.Tools = []event.Schema{{Name: "a", Schema: "{}"}, {Name: "b", Schema: `{"items":` + deep(64) + `}`}}
		}), "tools[1].schema", event.ErrLimit},
		{"a document's schema nested 65 deep", with(start, func(e *event.Event) { e.Docs = []event.Schema{{Name: "plan", Schema: deep(65)}} }), "docs[0].schema", event.ErrLimit},
		{"a declared schema that is no JSON is a guard's to judge", with(start, func(e *event.Event) { e.Tools = []event.Schema{{Name: "a", Schema: "{type: object"}} }), "", nil},
	}
}

func TestValidateLimits(t *testing.T) {
	for _, tt := range limitCases() {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.ev.Validate()
			if tt.field == "" {
				if err != nil {
					t.Errorf("Validate: %v, want nil", err)
				}
				return
			}
			expect(t, err, errCase{want: tt.reason, field: tt.field})
			if !errors.Is(err, event.ErrInvalid) {
				t.Errorf("%v does not wrap ErrInvalid", err)
			}
			// Over the wire, too: a limit holds for an event as decoded.
			var got event.Event
			if err := event.DecodeEvent(event.AppendEvent(nil, &tt.ev), &got); err != nil {
				t.Fatalf("decoding: %v", err)
			}
			expect(t, got.Validate(), errCase{want: tt.reason, field: tt.field})
		})
	}
}

// TestValidateLimitsAllocateNothing: the limits cost a plain event no
// allocation.
func TestValidateLimitsAllocateNothing(t *testing.T) {
	e := ev(event.KindCall, 2)
	e.Call, e.Tool, e.Args, e.Path = "c1", "edit_file", `{"path":"src/a.go","edits":[{"old":"[","new":"{"}]}`, "src/a.go"
	if n := testing.AllocsPerRun(100, func() { _ = e.Validate() }); n != 0 {
		t.Errorf("Validate of a call allocates %v times", n)
	}
}

// TestDecodeNesting: a payload nested deeper than MaxNesting fails with
// ErrLimit, named by its top-level key, however deep it goes; at the limit
// it decodes.
func TestDecodeNesting(t *testing.T) {
	nested := func(key string, depth int, open byte) []byte {
		b := append([]byte{0x82, 0xa1, 'v', 0x01, 0xa0 | byte(len(key))}, key...)
		for range depth {
			b = append(b, open)
			if open == 0x81 {
				b = append(b, 0xa1, 'k')
			}
		}
		return append(b, 0xc0)
	}
	var e event.Event
	for _, open := range []byte{0x91, 0x81} { // one-element arrays, one-entry maps
		if err := event.DecodeEvent(nested("x", event.MaxNesting-1, open), &e); err != nil {
			t.Errorf("nested %d deep under an unknown key (%#x): %v", event.MaxNesting, open, err)
		}
		for _, depth := range []int{event.MaxNesting, 1 << 24} {
			b := nested("x", depth, open)
			start := time.Now()
			err := event.DecodeEvent(b, &e)
			expect(t, err, errCase{want: event.ErrLimit, field: "x"})
			t.Logf("%d levels of %#x: %v in %v", depth, open, err, time.Since(start))
		}
		expect(t, event.DecodeEvent(nested("args", 1<<20, open), &e), errCase{want: event.ErrLimit, field: "args"})
	}
}

// TestDecodeClaimedLengths: a header that claims more elements or bytes
// than the payload holds is undecodable, and costs no more than the bytes
// it came in. A generic msgpack decoder sizes its map or slice by the
// claim, which for four billion elements exhausts the memory.
func TestDecodeClaimedLengths(t *testing.T) {
	huge := []byte{0x7f, 0xff, 0xff, 0xff}
	prefix := []byte{0x82, 0xa1, 'v', 0x01}
	for name, b := range map[string][]byte{
		"array 32 under args":    append(append(bytes.Clone(prefix), 0xa4, 'a', 'r', 'g', 's', 0xdd), huge...),
		"map 32 under args":      append(append(bytes.Clone(prefix), 0xa4, 'a', 'r', 'g', 's', 0xdf), huge...),
		"array 32 under calls":   append(append(bytes.Clone(prefix), 0xa5, 'c', 'a', 'l', 'l', 's', 0xdd), huge...),
		"array 32 under unknown": append(append(bytes.Clone(prefix), 0xa1, 'x', 0xdd), huge...),
		"str 32 under tool":      append(append(bytes.Clone(prefix), 0xa4, 't', 'o', 'o', 'l', 0xdb), huge...),
		"bin 32 under tool":      append(append(bytes.Clone(prefix), 0xa4, 't', 'o', 'o', 'l', 0xc6), huge...),
		"ext 32 under x":         append(append(bytes.Clone(prefix), 0xa1, 'x', 0xc9), huge...),
		"top-level map 32":       append(append([]byte{0xdf}, huge...), 0xa1, 'v', 0x01),
		"map 16 of 65535":        {0xde, 0xff, 0xff, 0xa1, 'v', 0x01},
	} {
		t.Run(name, func(t *testing.T) {
			var e event.Event
			expect(t, event.DecodeEvent(b, &e), errCase{want: event.ErrUndecodable})
			var d event.Decision
			expect(t, event.DecodeDecision(b, &d), errCase{want: event.ErrUndecodable})
		})
	}
}

// TestSchemasAgreeOnTheLimits: the JSON Schemas refuse what is over the
// limits they can express (counts, numbers, lengths in characters) and
// accept what is at them, as event.Validate does; TestSchemasMissTheLimits
// lists what they cannot.
func TestSchemasAgreeOnTheLimits(t *testing.T) {
	set := func(key string, val any) func(map[string]any) {
		return func(m map[string]any) { m[key] = val }
	}
	paths := func(n, size int) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = fmt.Sprintf("%0*d", size, i)
		}
		return out
	}
	tests := []struct {
		name, vector string
		mutate       func(m map[string]any)
		field        string // the field Go names; "" if both accept
	}{
		{"ts at the end of the year 9999", "event/call", set("ts", int64(event.MaxTS)), ""},
		{"ts after the year 9999", "event/call", set("ts", int64(event.MaxTS+1)), "ts"},
		{"a lease of a week", "event/run_start_full", set("lease", int64(event.MaxDuration)), ""},
		{"a lease over a week", "event/run_start_full", set("lease", int64(event.MaxDuration+1)), "lease"},
		{"an agent of 256 bytes", "event/run_start_full", set("agent", strings.Repeat("a", event.MaxToolLen)), ""},
		{"an agent of 257 bytes", "event/run_start_full", set("agent", strings.Repeat("a", event.MaxToolLen+1)), "agent"},
		{"a pattern of 257 bytes", "event/run_start_full", set("pattern", strings.Repeat("p", event.MaxToolLen+1)), "pattern"},
		{"a ws of 4096 bytes", "event/run_start_full", set("ws", "/"+strings.Repeat("w", event.MaxPathLen-1)), ""},
		{"a ws of 4097 bytes", "event/run_start_full", set("ws", "/"+strings.Repeat("w", event.MaxPathLen)), "ws"},
		{"an output of 4097 bytes", "event/run_start_full", set("outputs", []any{strings.Repeat("o", event.MaxPathLen+1)}), "outputs[0]"},
		{"a step's schema name of 257 bytes", "event/step_full", set("schema", strings.Repeat("s", event.MaxToolLen+1)), "schema"},
		{"a call's path of 4096 bytes", "event/call_full", set("path", strings.Repeat("p", event.MaxPathLen)), ""},
		{"a call's path of 4097 bytes", "event/call_full", set("path", strings.Repeat("p", event.MaxPathLen+1)), "path"},
		{"a result's path of 4097 bytes", "event/result_ref", set("path", strings.Repeat("p", event.MaxPathLen+1)), "path"},
		{"a result's tool of 257 bytes", "event/result_ref", set("tool", strings.Repeat("t", event.MaxToolLen+1)), "tool"},
		{"1024 changed paths", "event/result_ref", set("chg", map[string]any{"paths": paths(event.MaxChangedPaths, 4)}), ""},
		{"1025 changed paths", "event/result_ref", set("chg", map[string]any{"paths": paths(event.MaxChangedPaths+1, 4)}), "chg.paths"},
		{"a changed path of 4097 bytes", "event/result_ref", set("chg", map[string]any{"paths": paths(1, event.MaxPathLen+1)}), "chg.paths[0]"},
		{"a round's wait of a week", "event/round", set("wait", int64(event.MaxDuration)), ""},
		{"a round's wait over a week", "event/round", set("wait", int64(event.MaxDuration+1)), "wait"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schemaAndGoAgree(t, tt.vector, tt.mutate, tt.field, event.ErrLimit)
		})
	}
}

// TestSchemasMissTheLimits proves what docs/wire.md says the schemas
// cannot check of the limits: the nesting inside JSON text, byte lengths
// of non-ASCII text, and the nesting of keys the contract does not know.
// These events pass the schema and fail with ErrLimit.
func TestSchemasMissTheLimits(t *testing.T) {
	nested := func(n int) any {
		var v any = "x"
		for range n {
			v = []any{v}
		}
		return v
	}
	tests := []struct {
		name, vector string
		mutate       func(m map[string]any)
		field        string
	}{
		{"args nested 65 deep", "event/call_full", func(m map[string]any) {
			m["args"] = strings.Repeat("[", event.MaxJSONDepth+1) + strings.Repeat("]", event.MaxJSONDepth+1)
		}, "args"},
		{"a path of 4096 characters and 8192 bytes", "event/call_full", func(m map[string]any) { m["path"] = strings.Repeat("é", event.MaxPathLen) }, "path"},
		{"an unknown key nested 16 deep", "event/call", func(m map[string]any) { m["later"] = nested(event.MaxNesting) }, "later"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onlyGoRefuses(t, tt.vector, tt.mutate, tt.field, event.ErrLimit)
		})
	}
}

// TestWireDocListsTheLimits: docs/wire.md's table of limits gives each
// constant with its value.
func TestWireDocListsTheLimits(t *testing.T) {
	b, err := os.ReadFile(wireDoc)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string]int64{
		"MaxNesting": event.MaxNesting, "MaxIDLen": event.MaxIDLen, "MaxToolLen": event.MaxToolLen, "MaxPathLen": event.MaxPathLen,
		"MaxJSONDepth": event.MaxJSONDepth, "MaxDeclared": event.MaxDeclared, "MaxRoundCalls": event.MaxRoundCalls,
		"MaxChangedPaths": event.MaxChangedPaths, "MaxDuration": event.MaxDuration, "MaxTS": event.MaxTS,
	} {
		row := regexp.MustCompile(`(?m)^\| [^|]+ \| ` + fmt.Sprint(v) + `\b[^|]* \| ` + "`event." + name + "`" + ` \|`)
		if !row.Match(b) {
			t.Errorf("%s: no row of the limits table gives event.%s as %d", wireDoc, name, v)
		}
	}
}
