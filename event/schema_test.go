package event_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/vmihailenco/msgpack/v5"
)

// schemaBase is the base of every schema file's $id: a file is known as
// schemaBase and its name, and the files' $refs ("event.json",
// "event.json#/$defs/id") resolve against it.
const schemaBase = "https://guardstream.dev/schema/"

// schemas compiles every JSON Schema in testdata/schema once, by file name
// without ".json". Each file is added to the compiler under its $id, and
// nothing is loaded from anywhere else, so every $ref must resolve to one
// of the files: a validator in another language that registers the files
// the same way sees the same schemas.
var schemas = sync.OnceValues(func() (map[string]*jsonschema.Schema, error) {
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.UseLoader(jsonschema.SchemeURLLoader{}) // no file or network access
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
		url := schemaBase + filepath.Base(f)
		if obj, _ := doc.(map[string]any); obj == nil || obj["$id"] != url {
			return nil, fmt.Errorf("%s: $id must be %q", f, url)
		}
		if err := c.AddResource(url, doc); err != nil {
			return nil, err
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, f := range files {
		sch, err := c.Compile(schemaBase + filepath.Base(f))
		if err != nil {
			return nil, err
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = sch
	}
	return out, nil
})

// schemaName returns the schema of a payload: the event kind's name, such
// as "call", or "decision".
func schemaName(typ string, m map[string]any) string {
	if typ == "decision" {
		return "decision"
	}
	k, _ := m["k"].(int64)
	return event.Kind(k).String()
}

func schemaFor(t *testing.T, typ string, m map[string]any) *jsonschema.Schema {
	t.Helper()
	return schemaNamed(t, schemaName(typ, m))
}

func schemaNamed(t *testing.T, name string) *jsonschema.Schema {
	t.Helper()
	all, err := schemas()
	if err != nil {
		t.Fatalf("compiling the schemas: %v", err)
	}
	sch, ok := all[name]
	if !ok {
		t.Fatalf("no schema %s/%s.json", schemaDir, name)
	}
	return sch
}

// schemaFiles returns every schema file as JSON, by name without ".json".
func schemaFiles(t *testing.T) map[string]map[string]any {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(schemaDir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m, err := parseJSON(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out[strings.TrimSuffix(filepath.Base(f), ".json")] = m
	}
	return out
}

// obj returns m[key] as an object, or nil.
func obj(m map[string]any, key string) map[string]any {
	o, _ := m[key].(map[string]any)
	return o
}

func sortedKeys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// wireKeys returns the msgpack keys of the struct type rt, sorted.
func wireKeys(rt reflect.Type) []string {
	var out []string
	for i := 0; i < rt.NumField(); i++ {
		if key, _, ok := wireKey(rt.Field(i)); ok {
			out = append(out, key)
		}
	}
	slices.Sort(out)
	return out
}

// strs returns a JSON array of strings as a sorted slice.
func strs(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		s, _ := e.(string)
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

// TestSchemasCoverTheWireTypes checks that the schemas cannot fall behind
// the Go types: event.json and decision.json name exactly the keys of
// event.Event and event.Decision, and their nested $defs the keys of the
// nested types; every kind has its file, which applies event.json, names
// only known keys and holds the kind's const k; the enums list exactly the
// kinds, reasons and steer constraints of the Go source.
func TestSchemasCoverTheWireTypes(t *testing.T) {
	files := schemaFiles(t)

	// checkObject compares the properties of o with the keys of rt and
	// follows the keys that hold a struct to their $defs in file.
	var checkObject func(where string, file, o map[string]any, rt reflect.Type)
	checkObject = func(where string, file, o map[string]any, rt reflect.Type) {
		t.Helper()
		props := obj(o, "properties")
		if got, want := sortedKeys(props), wireKeys(rt); !slices.Equal(got, want) {
			t.Errorf("%s: properties %v, want the keys of %s: %v", where, got, rt, want)
		}
		if o["additionalProperties"] != true {
			t.Errorf("%s: additionalProperties must be true: unknown keys are allowed", where)
		}
		for i := 0; i < rt.NumField(); i++ {
			key, _, ok := wireKey(rt.Field(i))
			st, slice := structOf(rt.Field(i).Type)
			if !ok || st == nil {
				continue
			}
			p := obj(props, key)
			if slice {
				if p["type"] != "array" {
					t.Errorf("%s: %s must be an array", where, key)
				}
				p = obj(p, "items")
			}
			ref, _ := p["$ref"].(string)
			name, local := strings.CutPrefix(ref, "#/$defs/")
			def := obj(obj(file, "$defs"), name)
			if !local || def == nil {
				t.Errorf("%s: %s must refer to a definition in the file's $defs; $ref is %q", where, key, ref)
				continue
			}
			checkObject(fmt.Sprintf("%s $defs.%s", where, name), file, def, st)
		}
	}
	enum := func(where string, o map[string]any, want []string) {
		t.Helper()
		if got := strs(o["enum"]); !slices.Equal(got, want) {
			t.Errorf("%s: enum %v, want %v", where, got, want)
		}
	}
	evKeys := wireKeys(reflect.TypeOf(event.Event{}))

	for name, f := range files {
		if f["$id"] != schemaBase+name+".json" {
			t.Errorf("%s.json: $id %v, want %q", name, f["$id"], schemaBase+name+".json")
		}
		if f["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s.json: $schema %v, want draft 2020-12", name, f["$schema"])
		}
	}

	e := files["event"]
	checkObject("event.json", e, e, reflect.TypeOf(event.Event{}))
	var kinds []any
	for k := event.Kind(1); k != 0; k++ {
		if k.Valid() {
			kinds = append(kinds, int64(k))
		}
	}
	if got := obj(obj(e, "properties"), "k")["enum"]; !reflect.DeepEqual(got, kinds) {
		t.Errorf("event.json: k enum %v, want the event kinds %v", got, kinds)
	}

	for k := event.Kind(1); k != 0; k++ {
		if !k.Valid() {
			continue
		}
		where := k.String() + ".json"
		s, ok := files[k.String()]
		if !ok {
			t.Errorf("no %s for event kind %d", where, k)
			continue
		}
		if s["$ref"] != "event.json" {
			t.Errorf("%s: $ref %v, want \"event.json\": every kind applies the shared key types", where, s["$ref"])
		}
		props := obj(s, "properties")
		if c := obj(props, "k")["const"]; c != int64(k) {
			t.Errorf("%s: k const is %v, want %d", where, c, k)
		}
		for _, key := range sortedKeys(props) {
			if !slices.Contains(evKeys, key) {
				t.Errorf("%s: property %q is not a key of event.Event", where, key)
			}
		}
		required := strs(s["required"])
		for _, key := range required {
			if !slices.Contains(evKeys, key) {
				t.Errorf("%s: required %q is not a key of event.Event", where, key)
			}
		}
		if ap, set := s["additionalProperties"]; set && ap != true {
			t.Errorf("%s: additionalProperties must not be restricted: unknown keys are allowed", where)
		}
		if k == event.KindTimer {
			if c, set := obj(props, "seq")["const"]; !set || c != int64(0) || slices.Contains(required, "seq") {
				t.Errorf("%s: want seq const 0 and not required (absent reads as 0)", where)
			}
		} else if obj(props, "seq")["minimum"] != int64(1) || !slices.Contains(required, "seq") {
			t.Errorf("%s: want seq required with minimum 1", where)
		}
	}
	for name := range files {
		if name != "event" && name != "decision" && !slices.ContainsFunc(kinds, func(k any) bool { return event.Kind(k.(int64)).String() == name }) {
			t.Errorf("%s.json is neither event.json, decision.json nor the schema of an event kind", name)
		}
	}

	d := files["decision"]
	checkObject("decision.json", d, d, reflect.TypeOf(event.Decision{}))
	var codes []any
	for k := event.DecisionKind(1); k != 0; k++ {
		if k.Valid() {
			codes = append(codes, int64(k))
		}
	}
	if got := obj(obj(d, "properties"), "k")["enum"]; !reflect.DeepEqual(got, codes) {
		t.Errorf("decision.json: k enum %v, want the decision kinds %v", got, codes)
	}
	enum("decision.json rsn", obj(obj(d, "properties"), "rsn"), sourceConsts(t, "Reason"))
	enum("decision.json $defs.steer c", obj(obj(obj(obj(d, "$defs"), "steer"), "properties"), "c"), sourceConsts(t, "SteerKind"))
	enum("decision.json out", obj(obj(d, "properties"), "out"), sourceConsts(t, "Status"))
	enum("run_end.json status", obj(obj(files["run_end"], "properties"), "status"), sourceConsts(t, "Status"))
}

// TestSchemasReject checks that the schemas refuse what the contract
// forbids, for the rules that are the schemas' own: the structure of
// decisions, and the event rules that need no Go counterpart (the kind
// must match the schema).
func TestSchemasReject(t *testing.T) {
	tests := []struct {
		name   string
		vector string // the vector whose JSON form is broken
		mutate func(m map[string]any)
	}{
		{"missing tn", "event/call", func(m map[string]any) { delete(m, "tn") }},
		{"missing seq", "event/step", func(m map[string]any) { delete(m, "seq") }},
		{"missing v", "event/heartbeat", func(m map[string]any) { delete(m, "v") }},
		{"seq as a string", "event/call", func(m map[string]any) { m["seq"] = "3" }},
		{"seq 0", "event/call", func(m map[string]any) { m["seq"] = int64(0) }},
		{"seq as a float", "event/call", func(m map[string]any) { m["seq"] = 3.5 }},
		{"ts as a string", "event/run_start", func(m map[string]any) { m["ts"] = "2026-01-01T00:00:00Z" }},
		{"wrong k", "event/call", func(m map[string]any) { m["k"] = int64(event.KindResult) }},
		{"k as a name", "event/call", func(m map[string]any) { m["k"] = "call" }},
		{"version 2", "event/call", func(m map[string]any) { m["v"] = int64(2) }},
		{"tenant with a dot", "event/call", func(m map[string]any) { m["tn"] = "acme.eu" }},
		{"run with a space", "event/call", func(m map[string]any) { m["run"] = "run 42" }},
		{"run of 129 bytes", "event/call", func(m map[string]any) { m["run"] = strings.Repeat("r", 129) }},
		{"call without a call id", "event/call", func(m map[string]any) { delete(m, "call") }},
		{"call id with a wildcard", "event/call", func(m map[string]any) { m["call"] = "c*" }},
		{"call without a tool", "event/call", func(m map[string]any) { delete(m, "tool") }},
		{"empty tool", "event/call", func(m map[string]any) { m["tool"] = "" }},
		{"tool with a newline", "event/call", func(m map[string]any) { m["tool"] = "list\nfiles" }},
		{"args as an object", "event/call_full", func(m map[string]any) { m["args"] = map[string]any{"path": "src/main.go"} }},
		{"result without a call id", "event/result", func(m map[string]any) { delete(m, "call") }},
		{"err as a string", "event/result_full", func(m map[string]any) { m["err"] = "true" }},
		{"negative step", "event/step", func(m map[string]any) { m["step"] = int64(-1) }},
		{"run_end without a status", "event/run_end", func(m map[string]any) { delete(m, "status") }},
		{"run_end with a bad status", "event/run_end", func(m map[string]any) { m["status"] = "done" }},
		{"a known key of another kind with the wrong type", "event/heartbeat", func(m map[string]any) { m["tool"] = int64(1) }},
		{"a nested key of another kind with the wrong type", "event/heartbeat", func(m map[string]any) { m["ref"] = map[string]any{"dig": int64(1)} }},
		{"null for a known key", "event/result", func(m map[string]any) { m["ref"] = nil }},
		{"tools as an object", "event/run_start_full", func(m map[string]any) { m["tools"] = map[string]any{"read_file": readSchema} }},
		{"a tool's schema as an object", "event/run_start_full", func(m map[string]any) {
			m["tools"].([]any)[0].(map[string]any)["schema"] = map[string]any{"type": "object"}
		}},
		{"a timer with seq 3", "event/timer", func(m map[string]any) { m["seq"] = int64(3) }},
		{"a round without calls", "event/round", func(m map[string]any) { delete(m, "calls") }},
		{"not an object", "event/call", nil},

		{"decision kind 0", "decision/allow", func(m map[string]any) { m["k"] = int64(0) }},
		{"decision kind 12", "decision/allow", func(m map[string]any) { m["k"] = int64(12) }},
		{"decision with a negative seq", "decision/allow", func(m map[string]any) { m["seq"] = int64(-1) }},
		{"verdict without a call id", "decision/allow", func(m map[string]any) { delete(m, "call") }},
		{"defer without a call id", "decision/defer", func(m map[string]any) { delete(m, "call") }},
		{"advise without steer", "decision/advise", func(m map[string]any) { delete(m, "steer") }},
		{"steer without its constraint", "decision/advise", func(m map[string]any) { delete(m["steer"].(map[string]any), "c") }},
		{"unknown constraint", "decision/advise", func(m map[string]any) { m["steer"].(map[string]any)["c"] = "be_nice" }},
		{"signature in upper case", "decision/advise", func(m map[string]any) { m["steer"].(map[string]any)["sig"] = strings.ToUpper(sigRead) }},
		{"signature with a trailing newline", "decision/advise", func(m map[string]any) { m["steer"].(map[string]any)["sig"] = sigRead[:15] + "\n" }},
		{"counter without a value", "decision/advise", func(m map[string]any) { delete(m["ctr"].([]any)[0].(map[string]any), "v") }},
		{"counters as an object", "decision/advise", func(m map[string]any) { m["ctr"] = map[string]any{"repeat": int64(3)} }},
		{"reject without a reason", "decision/reject", func(m map[string]any) { delete(m, "rsn") }},
		{"unknown reason", "decision/reject", func(m map[string]any) { m["rsn"] = "BAD_MOOD" }},
		{"near as a string", "decision/reject_unknown_tool", func(m map[string]any) { m["near"] = "read_file" }},
		{"rule as an integer", "decision/reject_policy", func(m map[string]any) { m["rule"] = int64(1) }},
		{"stop without an outcome", "decision/stop", func(m map[string]any) { delete(m, "out") }},
		{"stop with a bad outcome", "decision/stop", func(m map[string]any) { m["out"] = "done" }},
		{"stop without a reason", "decision/stop_lease", func(m map[string]any) { delete(m, "rsn") }},
		{"args as an object", "decision/repair_args", func(m map[string]any) { m["args"] = map[string]any{"path": "src/main.go"} }},
		{"diag without a path", "decision/repair_args", func(m map[string]any) { delete(m["diag"].([]any)[1].(map[string]any), "path") }},
		{"diag without a message", "decision/repair_args", func(m map[string]any) { delete(m["diag"].([]any)[0].(map[string]any), "msg") }},
		{"diag path that is not a JSON Pointer", "decision/repair_args", func(m map[string]any) { m["diag"].([]any)[1].(map[string]any)["path"] = "filePath" }},
		{"pressure without a level", "decision/pressure", func(m map[string]any) { delete(m, "level") }},
		{"level 0", "decision/pressure", func(m map[string]any) { m["level"] = int64(0) }},
		{"level 101", "decision/pressure", func(m map[string]any) { m["level"] = int64(101) }},
		{"output without a call id", "decision/output", func(m map[string]any) { delete(m, "call") }},
		{"output ref without a size", "decision/output", func(m map[string]any) { delete(m["ref"].(map[string]any), "size") }},
		{"output ref with a digest in upper case", "decision/output", func(m map[string]any) {
			r := m["ref"].(map[string]any)
			r["dig"] = strings.ToUpper(r["dig"].(string))
		}},
		{"trunc without total_bytes", "decision/output", func(m map[string]any) { delete(m["trunc"].(map[string]any), "total_bytes") }},
		{"trunc with has_more as a string", "decision/output", func(m map[string]any) { m["trunc"].(map[string]any)["has_more"] = "true" }},
		{"trunc with a negative offset", "decision/output_tail", func(m map[string]any) { m["trunc"].(map[string]any)["offset"] = int64(-1) }},
		{"settled without calls", "decision/settled", func(m map[string]any) { delete(m, "calls") }},
		{"settled with no calls", "decision/settled", func(m map[string]any) { m["calls"] = []any{} }},
		{"settled with a missing call id with a dot", "decision/settled", func(m map[string]any) { m["missing"] = []any{"c.22"} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			typ, m := vectorJSON(t, tt.vector)
			sch := schemaFor(t, typ, m)
			var inst any = m
			if tt.mutate != nil {
				tt.mutate(m)
			} else {
				inst = []any{m}
			}
			if err := sch.Validate(inst); err == nil {
				t.Errorf("the %s schema accepts %v; want it refused", schemaName(typ, m), inst)
			}
		})
	}
}

// decodeAndValidate is what guard-consumer does with an event: decode the
// msgpack form of m and validate it.
func decodeAndValidate(t *testing.T, m map[string]any) error {
	t.Helper()
	var buf bytes.Buffer
	enc := msgpack.NewEncoder(&buf)
	enc.SetSortMapKeys(true)
	if err := enc.Encode(m); err != nil {
		t.Fatal(err)
	}
	var e event.Event
	if err := event.DecodeEvent(buf.Bytes(), &e); err != nil {
		return err
	}
	return e.Validate()
}

// edit is one way to break an event: leave out the key at path, or give
// it the value val.
type edit struct {
	how  string
	path []any // keys (string) and array indexes (int)
	del  bool
	val  any
}

// edits returns every way to break one key of v at any depth: leave it
// out, or give it a value of another type; array elements get a value of
// another type.
func edits(t *testing.T, path []any, v any) []edit {
	var out []edit
	name := func(p []any) string {
		var b strings.Builder
		for _, s := range p {
			switch s := s.(type) {
			case string:
				if b.Len() > 0 {
					b.WriteByte('.')
				}
				b.WriteString(s)
			case int:
				fmt.Fprintf(&b, "[%d]", s)
			}
		}
		return b.String()
	}
	child := func(s any) []any { return append(slices.Clone(path), s) }
	switch x := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(x) {
			p := child(k)
			out = append(out,
				edit{how: "without " + name(p), path: p, del: true},
				edit{how: name(p) + " of the wrong type", path: p, val: wrongType(t, x[k])})
			out = append(out, edits(t, p, x[k])...)
		}
	case []any:
		for i, e := range x {
			p := child(i)
			out = append(out, edit{how: name(p) + " of the wrong type", path: p, val: wrongType(t, e)})
			out = append(out, edits(t, p, e)...)
		}
	}
	return out
}

// apply returns a copy of m with the edit made.
func (e edit) apply(m map[string]any) map[string]any {
	root := deepCopy(m).(map[string]any)
	var parent any = root
	for _, s := range e.path[:len(e.path)-1] {
		switch p := parent.(type) {
		case map[string]any:
			parent = p[s.(string)]
		case []any:
			parent = p[s.(int)]
		}
	}
	switch p := parent.(type) {
	case map[string]any:
		if e.del {
			delete(p, e.path[len(e.path)-1].(string))
		} else {
			p[e.path[len(e.path)-1].(string)] = e.val
		}
	case []any:
		p[e.path[len(e.path)-1].(int)] = e.val
	}
	return root
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func wrongType(t *testing.T, v any) any {
	switch v.(type) {
	case string:
		return int64(7)
	case int64, []any, map[string]any:
		return "7"
	case bool:
		return "true"
	}
	t.Fatalf("no wrong type for %T", v)
	return nil
}

// TestSchemasAgreeWithTheCodec breaks every key of every event vector at
// every depth, by leaving it out or by giving it a value of another type,
// and checks that the schema and the Go decoder with Validate accept and
// refuse the same.
func TestSchemasAgreeWithTheCodec(t *testing.T) {
	for _, v := range loadVectors(t) {
		if v.Type != "event" || v.Extra {
			continue
		}
		base, err := parseJSON(v.JSON)
		if err != nil {
			t.Fatal(err)
		}
		sch := schemaFor(t, v.Type, base)
		for _, e := range edits(t, nil, base) {
			m := e.apply(base)
			schemaErr := sch.Validate(m)
			goErr := decodeAndValidate(t, m)
			if (schemaErr == nil) != (goErr == nil) {
				t.Errorf("%s %s: schema says %v, Go says %v; they must agree", v.Name, e.how, schemaErr, goErr)
			}
		}
	}
}

// TestSchemasAgreeOnTheRules checks each rule of event.Validate at its
// edges against the schema of the event's kind: both accept, or both
// refuse and Go names field.
func TestSchemasAgreeOnTheRules(t *testing.T) {
	set := func(key string, val any) func(map[string]any) {
		return func(m map[string]any) { m[key] = val }
	}
	del := func(key string) func(map[string]any) {
		return func(m map[string]any) { delete(m, key) }
	}
	in := func(key, sub string, val any) func(map[string]any) {
		return func(m map[string]any) { m[key].(map[string]any)[sub] = val }
	}
	list := func(n int, f func(i int) any) []any {
		out := make([]any, n)
		for i := range out {
			out[i] = f(i)
		}
		return out
	}
	tool := func(name string) any { return map[string]any{"name": name, "schema": readSchema} }
	dig := event.Digest([]byte(testOut))
	tests := []struct {
		name, vector string
		mutate       func(m map[string]any)
		field        string // the field Go names; "" if both accept
	}{
		{"lease 1000", "event/run_start_full", set("lease", int64(1000)), ""},
		{"lease 0", "event/run_start_full", set("lease", int64(0)), ""},
		{"no lease", "event/run_start_full", del("lease"), ""},
		{"lease 999", "event/run_start_full", set("lease", int64(999)), "lease"},
		{"lease 1", "event/run_start_full", set("lease", int64(1)), "lease"},
		{"negative lease", "event/run_start_full", set("lease", int64(-1000)), "lease"},
		{"ws as a Windows drive path", "event/run_start_full", set("ws", `C:\work\acme`), ""},
		{"ws as a Windows drive path with slashes", "event/run_start_full", set("ws", "d:/work"), ""},
		{"ws /", "event/run_start_full", set("ws", "/"), ""},
		{"empty ws", "event/run_start_full", set("ws", ""), ""},
		{"relative ws", "event/run_start_full", set("ws", "work/acme"), "ws"},
		{"ws starting with a dot", "event/run_start_full", set("ws", "./work"), "ws"},
		{"ws starting with a tilde", "event/run_start_full", set("ws", "~/work"), "ws"},
		{"ws relative to a drive", "event/run_start_full", set("ws", "C:work"), "ws"},
		{"ws of a drive only", "event/run_start_full", set("ws", "C:"), "ws"},
		{"ws with a digit for a drive", "event/run_start_full", set("ws", `1:\work`), "ws"},
		{"ws as a UNC path", "event/run_start_full", set("ws", `\\server\share`), "ws"},
		{"no tools", "event/run_start_full", set("tools", []any{}), ""},
		{"256 tools", "event/run_start_full", set("tools", list(event.MaxDeclared, func(i int) any { return tool(fmt.Sprint("t", i)) })), ""},
		{"257 tools", "event/run_start_full", set("tools", list(event.MaxDeclared+1, func(i int) any { return tool(fmt.Sprint("t", i)) })), "tools"},
		{"a tool without a name", "event/run_start_full", set("tools", []any{tool("read_file"), map[string]any{"schema": editSchema}}), "tools[1].name"},
		{"a tool with an empty name", "event/run_start_full", set("tools", []any{tool("read_file"), tool("")}), "tools[1].name"},
		{"a tool name with a tab", "event/run_start_full", set("tools", []any{tool("read\tfile")}), "tools[0].name"},
		{"a tool name of 256 bytes", "event/run_start_full", set("tools", []any{tool(strings.Repeat("t", event.MaxToolLen))}), ""},
		{"a tool name of 257 bytes", "event/run_start_full", set("tools", []any{tool(strings.Repeat("t", event.MaxToolLen+1))}), "tools[0].name"},
		{"a tool declared twice", "event/run_start_full", set("tools", []any{tool("read_file"), tool("read_file")}), "tools[1].name"},
		{"a tool without a schema", "event/run_start_full", set("tools", []any{map[string]any{"name": "read_file"}}), ""},
		{"a tool of each kind", "event/run_start_full", set("tools", []any{map[string]any{"name": "sh", "kind": "shell"}, map[string]any{"name": "rd", "kind": "read"}, map[string]any{"name": "ed", "kind": "edit"}}), ""},
		{"a tool kind a later version may add", "event/run_start_full", set("tools", []any{map[string]any{"name": "browse", "kind": "browser"}}), ""},
		{"a tool kind with a newline", "event/run_start_full", set("tools", []any{tool("read_file"), map[string]any{"name": "x", "kind": "she\nll"}}), "tools[1].kind"},
		{"an empty tool kind", "event/run_start_full", set("tools", []any{map[string]any{"name": "x", "kind": ""}}), ""},
		{"a document schema declared twice", "event/run_start_full", set("docs", []any{map[string]any{"name": "plan", "schema": planSchema}, map[string]any{"name": "plan", "schema": planSchema}}), "docs[1].name"},
		{"a document schema named like a tool", "event/run_start_full", set("docs", []any{map[string]any{"name": "read_file", "schema": planSchema}}), ""},
		{"a document schema without a name", "event/run_start_full", set("docs", []any{map[string]any{"schema": planSchema}}), "docs[0].name"},
		{"an empty output path", "event/run_start_full", set("outputs", []any{""}), "outputs[0]"},
		{"an output path with a newline", "event/run_start_full", set("outputs", []any{"a.go", "b\n.go"}), "outputs[1]"},
		{"an output path with a C1 control", "event/run_start_full", set("outputs", []any{"a\u0085.go"}), "outputs[0]"},
		{"a non-ASCII output path", "event/run_start_full", set("outputs", []any{"docs/naïve.md"}), ""},
		{"256 outputs", "event/run_start_full", set("outputs", list(event.MaxDeclared, func(i int) any { return fmt.Sprint("o", i) })), ""},
		{"257 outputs", "event/run_start_full", set("outputs", list(event.MaxDeclared+1, func(i int) any { return fmt.Sprint("o", i) })), "outputs"},

		{"negative step", "event/step_full", set("step", int64(-1)), "step"},
		{"negative turn", "event/step_full", set("turn", int64(-1)), "turn"},
		{"negative tin", "event/step_full", set("tin", int64(-1)), "tin"},
		{"negative tout", "event/step_full", set("tout", int64(-1)), "tout"},
		{"negative cost", "event/step_full", set("cost", int64(-1)), "cost"},
		{"negative ctx", "event/step_full", set("ctx", int64(-1)), "ctx"},
		{"negative win", "event/step_full", set("win", int64(-1)), "win"},
		{"ctx above win is not checked", "event/step_full", set("ctx", int64(300000)), ""},
		{"a schema without a doc", "event/step_full", del("doc"), "doc"},
		{"a schema with an empty doc", "event/step_full", set("doc", ""), "doc"},
		{"a doc without a schema", "event/step_full", del("schema"), ""},
		{"an empty schema without a doc", "event/step_full", func(m map[string]any) { m["schema"] = ""; delete(m, "doc") }, ""},
		{"a doc that is not JSON is not checked", "event/step_full", set("doc", "{steps:"), ""},
		{"a negative step on a call is not checked", "event/call", set("step", int64(-1)), ""},

		{"ref and out", "event/result_ref", set("out", "FAIL"), "ref"},
		{"ref and an empty out", "event/result_ref", set("out", ""), ""},
		{"ref without a digest", "event/result_ref", func(m map[string]any) { delete(m["ref"].(map[string]any), "dig") }, "ref.dig"},
		{"ref digest in upper case", "event/result_ref", in("ref", "dig", "sha256:"+strings.ToUpper(dig[7:])), "ref.dig"},
		{"ref digest with another algorithm", "event/result_ref", in("ref", "dig", "sha512:"+dig[7:]), "ref.dig"},
		{"ref digest without its prefix", "event/result_ref", in("ref", "dig", dig[7:]), "ref.dig"},
		{"ref digest of 63 hex digits", "event/result_ref", in("ref", "dig", dig[:70]), "ref.dig"},
		{"ref digest of 65 hex digits", "event/result_ref", in("ref", "dig", dig+"0"), "ref.dig"},
		{"ref digest with a trailing newline", "event/result_ref", in("ref", "dig", dig+"\n"), "ref.dig"},
		{"ref digest of an empty output", "event/result_ref", in("ref", "dig", event.Digest(nil)), ""},
		{"ref without a size", "event/result_ref", func(m map[string]any) { delete(m["ref"].(map[string]any), "size") }, ""},
		{"ref of size 0", "event/result_ref", in("ref", "size", int64(0)), ""},
		{"ref of a negative size", "event/result_ref", in("ref", "size", int64(-1)), "ref.size"},
		{"negative files changed", "event/result_ref", in("chg", "files", int64(-1)), "chg"},
		{"negative lines changed", "event/result_ref", in("chg", "lines", int64(-1)), "chg"},
		{"negative hunks changed", "event/result_ref", in("chg", "hunks", int64(-1)), "chg"},
		{"an empty chg", "event/result_ref", set("chg", map[string]any{}), ""},
		{"a negative exit code", "event/result_ref", set("exit", int64(-9)), ""},
		{"abandoned false with an outcome", "event/result_ref", set("abandoned", false), ""},
		{"abandoned with err", "event/result_abandoned", set("err", true), "abandoned"},
		{"abandoned with err false", "event/result_abandoned", set("err", false), ""},
		{"abandoned with out", "event/result_abandoned", set("out", "not run"), "abandoned"},
		{"abandoned with an empty out", "event/result_abandoned", set("out", ""), ""},
		{"abandoned with a ref", "event/result_abandoned", set("ref", map[string]any{"dig": event.Digest(nil), "size": int64(0)}), "abandoned"},
		{"abandoned with an exit code", "event/result_abandoned", set("exit", int64(1)), "abandoned"},
		{"abandoned with exit 0", "event/result_abandoned", set("exit", int64(0)), ""},
		{"abandoned with verify", "event/result_abandoned", set("verify", true), "abandoned"},
		{"abandoned with chg", "event/result_abandoned", set("chg", map[string]any{}), "abandoned"},
		{"abandoned without a call id", "event/result_abandoned", del("call"), "call"},

		{"a round of one call", "event/round", set("calls", []any{"c20"}), ""},
		{"a round of 256 calls", "event/round", set("calls", list(event.MaxRoundCalls, func(i int) any { return fmt.Sprint("c", i) })), ""},
		{"a round of 257 calls", "event/round", set("calls", list(event.MaxRoundCalls+1, func(i int) any { return fmt.Sprint("c", i) })), "calls"},
		{"a round of no calls", "event/round", set("calls", []any{}), "calls"},
		{"a round without calls", "event/round", del("calls"), "calls"},
		{"a call listed twice", "event/round", set("calls", []any{"c20", "c20"}), "calls[1]"},
		{"a call id with a dot", "event/round", set("calls", []any{"c20", "c.21"}), "calls[1]"},
		{"an empty call id", "event/round", set("calls", []any{""}), "calls[0]"},
		{"wait 0", "event/round", set("wait", int64(0)), ""},
		{"a negative wait", "event/round", set("wait", int64(-1)), "wait"},
		{"a turn without a number", "event/turn", del("turn"), ""},
		{"a negative turn", "event/turn", set("turn", int64(-1)), "turn"},
		{"a resume without by", "event/resume", del("by"), "by"},
		{"a resume by an empty name", "event/resume", set("by", ""), "by"},
		{"a resume by a name with a newline", "event/resume", set("by", "ops\n"), "by"},
		{"a resume without why", "event/resume", del("why"), "why"},
		{"a why with a control character", "event/resume", set("why", "go\u0007on"), "why"},
		{"a why of 1024 bytes", "event/resume", set("why", strings.Repeat("w", event.MaxWhyLen)), ""},
		{"a why of 1025 bytes", "event/resume", set("why", strings.Repeat("w", event.MaxWhyLen+1)), "why"},
		{"a compaction without usage", "event/compaction", func(m map[string]any) { delete(m, "ctx"); delete(m, "win") }, ""},
		{"a negative win on a compaction", "event/compaction", set("win", int64(-1)), "win"},
		{"a text digest of 256 bytes", "event/step_digest", set("tdig", strings.Repeat("d", event.MaxDigestLen)), ""},
		{"a text digest of 257 bytes", "event/step_digest", set("tdig", strings.Repeat("d", event.MaxDigestLen+1)), "tdig"},
		{"an empty text digest", "event/step_digest", set("tdig", ""), ""},

		{"a timer with seq 3", "event/timer", set("seq", int64(3)), "seq"},
		{"a timer with seq 1", "event/timer", set("seq", int64(1)), "seq"},
		{"a timer with a negative seq", "event/timer", set("seq", int64(-1)), "seq"},
		{"a timer without seq", "event/timer", del("seq"), ""},
		{"a timer without a name", "event/timer", del("timer"), "timer"},
		{"a timer with an empty name", "event/timer", set("timer", ""), "timer"},
		{"a timer name with a newline", "event/timer", set("timer", "lease\n"), "timer"},
		{"a timer name of 129 bytes", "event/timer", set("timer", strings.Repeat("t", event.MaxIDLen+1)), "timer"},
		{"a round timer", "event/timer", set("timer", "round"), ""},
		{"a timer without gen", "event/timer", del("gen"), "gen"},
		{"a timer with gen 0", "event/timer", set("gen", int64(0)), "gen"},
		{"a timer with a negative gen", "event/timer", set("gen", int64(-7)), "gen"},
		{"a timer without ts", "event/timer", del("ts"), "ts"},
		{"seq 0 on a heartbeat", "event/heartbeat", set("seq", int64(0)), "seq"},

		{"run_start keys on a heartbeat are not checked", "event/heartbeat", func(m map[string]any) {
			m["lease"], m["ws"], m["tools"] = int64(5), "relative", []any{tool(""), tool("")}
		}, ""},
		{"result keys on a call are not checked", "event/call", func(m map[string]any) {
			m["out"], m["ref"], m["chg"] = "x", map[string]any{"dig": "md5"}, map[string]any{"files": int64(-1)}
		}, ""},
		{"round and timer keys on a step are not checked", "event/step", func(m map[string]any) {
			m["calls"], m["wait"], m["timer"], m["gen"] = []any{"c1", "c1"}, int64(-1), "", int64(-1)
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			schemaAndGoAgree(t, tt.vector, tt.mutate, tt.field, event.ErrInvalid)
		})
	}
}

// TestSchemaLimits proves what docs/wire.md says the schemas cannot check:
// byte lengths, and the uniqueness of a name within a list of objects.
// These events pass the schema and fail event.Validate. (Invalid UTF-8 has
// no JSON form, and the order of seq is not a property of one event.)
func TestSchemaLimits(t *testing.T) {
	tests := []struct {
		name, vector string
		mutate       func(m map[string]any)
		field        string
	}{
		{"a run id of 65 characters and 129 bytes", "event/call", func(m map[string]any) { m["run"] = "x" + strings.Repeat("é", 64) }, "run"},
		{"a tool name of 129 characters and 258 bytes", "event/call", func(m map[string]any) { m["tool"] = strings.Repeat("é", 129) }, "tool"},
		{"two tools of one name with different schemas", "event/run_start_full", func(m map[string]any) {
			m["tools"].([]any)[1].(map[string]any)["name"] = "read_file"
		}, "tools[1].name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			onlyGoRefuses(t, tt.vector, tt.mutate, tt.field, event.ErrInvalid)
		})
	}
}

// sharedDef returns the definition name of event.json's $defs.
func sharedDef(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(schemaDir, "event.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Defs map[string]map[string]any `json:"$defs"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	def, ok := s.Defs[name]
	if !ok {
		t.Fatalf("event.json has no $defs.%s", name)
	}
	return def
}

// notPattern returns the "not" pattern of a definition, compiled.
func notPattern(t *testing.T, def map[string]any) *regexp.Regexp {
	t.Helper()
	not, _ := def["not"].(map[string]any)
	p, _ := not["pattern"].(string)
	if p == "" {
		t.Fatal("no not pattern")
	}
	return regexp.MustCompile(p)
}

// TestIDPattern checks the schemas' id rule against event.CheckID for
// every Unicode code point, and the length limit at its edge. The schemas
// list the forbidden characters in a "not" pattern without anchors, which
// every regular expression engine reads alike (Python's "$" would also
// match before a trailing newline).
func TestIDPattern(t *testing.T) {
	def := sharedDef(t, "id")
	forbidden := notPattern(t, def)
	var bad []string
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue // surrogates cannot be in a JSON string
		}
		id := "a" + string(r) + "b"
		if schemaOK, goErr := !forbidden.MatchString(id), event.CheckID(id); schemaOK != (goErr == nil) {
			bad = append(bad, fmt.Sprintf("%U (schema accepts %t, CheckID %v)", r, schemaOK, goErr))
		}
	}
	if len(bad) > 0 {
		t.Errorf("the schemas' id rule and CheckID disagree on %d code points, such as %v", len(bad), bad[:min(len(bad), 10)])
	}
	if def["maxLength"] != float64(event.MaxIDLen) {
		t.Errorf("maxLength %v, want event.MaxIDLen (%d)", def["maxLength"], event.MaxIDLen)
	}
	for _, id := range []string{"", "acme\n", strings.Repeat("x", event.MaxIDLen), strings.Repeat("x", event.MaxIDLen+1)} {
		m := map[string]any{"v": int64(1), "k": int64(event.KindHeartbeat), "tn": id, "run": "r", "seq": int64(1), "ts": int64(t0)}
		schemaErr := schemaNamed(t, "heartbeat").Validate(m)
		if (schemaErr == nil) != (event.CheckID(id) == nil) {
			t.Errorf("id %q: schema says %v, CheckID says %v", id, schemaErr, event.CheckID(id))
		}
	}
}

// TestNamePattern checks the schemas' rule for names (tools, declared
// schemas, timers) and output paths, "text", against event.Validate for
// every Unicode code point, and the name length limit at its edge.
func TestNamePattern(t *testing.T) {
	forbidden := notPattern(t, sharedDef(t, "text"))
	var bad []string
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if !utf8.ValidRune(r) {
			continue
		}
		e := ev(event.KindCall, 3)
		e.Call, e.Tool = "c1", "a"+string(r)+"b"
		if schemaOK, goErr := !forbidden.MatchString(e.Tool), e.Validate(); schemaOK != (goErr == nil) {
			bad = append(bad, fmt.Sprintf("%U (schema accepts %t, Validate %v)", r, schemaOK, goErr))
		}
	}
	if len(bad) > 0 {
		t.Errorf("the schemas' text rule and Validate disagree on %d code points, such as %v", len(bad), bad[:min(len(bad), 10)])
	}
	if got := sharedDef(t, "name")["maxLength"]; got != float64(event.MaxToolLen) {
		t.Errorf("name maxLength %v, want event.MaxToolLen (%d)", got, event.MaxToolLen)
	}
}

// schemaAndGoAgree mutates the JSON form of vector and checks that the
// event's JSON Schema and the Go decoder agree on it: both accept it when
// field is empty, else the schema refuses it and Go fails with want on
// field.
func schemaAndGoAgree(t *testing.T, vector string, mutate func(map[string]any), field string, want error) {
	t.Helper()
	typ, m := vectorJSON(t, vector)
	mutate(m)
	schemaErr := schemaFor(t, typ, m).Validate(m)
	goErr := decodeAndValidate(t, m)
	if field == "" {
		if schemaErr != nil || goErr != nil {
			t.Errorf("want it accepted; schema says %v, Go says %v", schemaErr, goErr)
		}
		return
	}
	if schemaErr == nil {
		t.Errorf("the %s schema accepts it; want it refused", schemaName(typ, m))
	}
	if p := problem(goErr, want, field); p != "" {
		t.Errorf("Go: %s", p)
	}
}

// onlyGoRefuses mutates the JSON form of vector into an event the schema
// cannot refuse, as docs/wire.md says, and checks that the schema accepts
// it while Go fails with want on field.
func onlyGoRefuses(t *testing.T, vector string, mutate func(map[string]any), field string, want error) {
	t.Helper()
	typ, m := vectorJSON(t, vector)
	mutate(m)
	if err := schemaFor(t, typ, m).Validate(m); err != nil {
		t.Errorf("the schema refuses it (%v); docs/wire.md says it cannot", err)
	}
	if p := problem(decodeAndValidate(t, m), want, field); p != "" {
		t.Errorf("Go: %s", p)
	}
}
