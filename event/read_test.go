package event

import (
	"encoding/hex"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"github.com/vmihailenco/msgpack/v5"
)

// readInputs are payloads readEvent must read as reflection does, or leave
// to it: the wire vectors, and values of the wrong type, repeated keys and
// odd encodings of every kind of field.
func readInputs(t testing.TB) [][]byte {
	t.Helper()
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct{ Hex string }
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	var in [][]byte
	for _, v := range vs {
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			t.Fatal(err)
		}
		in = append(in, b)
	}
	base := []any{"v", 1, "k", 4, "tn", "acme", "run", "r1", "seq", 3, "ts", 1767225600000}
	for _, extra := range [][]any{
		nil,
		{"call", "c1", "tool", "bash", "args", `{"cmd":"ls"}`, "path", "a.go"},
		{"tools", []any{map[string]any{"name": "bash", "schema": "{}", "kind": "shell"}, nil, map[string]any{"x": 1}}},
		{"tools", []any{}, "docs", nil, "outputs", []any{"a", nil, []byte("b")}},
		{"tools", []any{[]any{"bash", "{}", "shell"}}},                        // a struct as an array
		{"tools", []any{map[string]any{"name": 1}}},                           // wrong type inside
		{"outputs", []any{"a"}, "outputs", []any{"b", "c"}},                   // repeated slice
		{"outputs", []any{"a"}, "outputs", nil},                               // repeated, then nil
		{"ref", map[string]any{"dig": "sha256:00", "size": 9}},                // pointer
		{"ref", map[string]any{"dig": "x"}, "ref", map[string]any{"size": 2}}, // merged by reflection
		{"ref", nil, "chg", map[string]any{"files": 1, "paths": []any{"a"}, "z": []any{1, 2}}},
		{"chg", msgpack.RawMessage(encodeMap(t, []any{"paths", []any{"a"}, "paths", nil}))},
		{"chg", msgpack.RawMessage(encodeMap(t, []any{"paths", []any{"a"}, "paths", []any{"b"}}))},
		{"seq", nil, "ts", int8(-3), "exit", uint64(1 << 63), "wait", int64(-1 << 40), "gen", uint16(65535)},
		{"seq", 1.5}, // a float for an integer
		{"k", 0}, {"k", 300}, {"k", nil}, {"k", "call"},
		{"err", nil, "verify", true, "plan", false, "abandoned", 1}, // an integer for a boolean
		{"tn", nil, "run", []byte("r1")},
		{"tn", 5},
		{"x", map[string]any{"y": []any{map[string]any{}, nil}}, "status", "completed"},
		{"calls", []any{"c1", "c2"}, "wait", 500, "timer", "lease", "by", "op", "why", "because"},
		{"step", 2, "turn", 1, "tin", 10, "tout", 20, "cost", 30, "ctx", 40, "win", 50, "doc", "{}", "schema", "s", "tdig", "d"},
		{"agent", "a", "lease", 100, "ws", "/w", "pattern", "p", "out", "o", "-", "forged"},
	} {
		in = append(in, encodeMap(t, append(append([]any{}, base...), extra...)))
	}
	in = append(in, append(encodeMap(t, base), 0xc0)) // trailing bytes
	return in
}

// encodeMap encodes kv, keys and values in turn, as one msgpack map in
// that order, repeated keys and all.
func encodeMap(t testing.TB, kv []any) []byte {
	t.Helper()
	var w sliceWriter
	enc := msgpack.NewEncoder(&w)
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	must(enc.EncodeMapLen(len(kv) / 2))
	for _, v := range kv {
		must(enc.Encode(v))
	}
	return w.b
}

// checkRead fails t unless readEvent gives up on b or reads it into the
// event the reflective decoder, shape check and all, decodes it to.
func checkRead(t *testing.T, b []byte) bool {
	t.Helper()
	var fast Event
	if len(b) == 0 || !isMap(b[0]) || !readEvent(b, &fast) {
		return false
	}
	var slow Event
	if err := decode(b, &slow); err != nil {
		t.Fatalf("%x: readEvent read %+v, the reflective decoder refuses it: %v", b, fast, err)
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%x:\nreadEvent  %+v\nreflection %+v", b, fast, slow)
	}
	return true
}

func TestReadEventMatchesReflection(t *testing.T) {
	read := 0
	in := readInputs(t)
	for _, b := range in {
		if checkRead(t, b) {
			read++
		}
	}
	if read == 0 || read == len(in) {
		t.Fatalf("readEvent read %d of %d inputs; some must take each path", read, len(in))
	}
	t.Logf("readEvent read %d of %d inputs and left the rest to reflection", read, len(in))
}

// TestReadEventReadsEveryEventVector checks that what encoders send takes
// the fast path: every event of the wire vectors without extra keys.
func TestReadEventReadsEveryEventVector(t *testing.T) {
	raw, err := os.ReadFile("testdata/vectors.json")
	if err != nil {
		t.Fatal(err)
	}
	var vs []struct {
		Name, Type, Hex string
		Extra           bool
	}
	if err := json.Unmarshal(raw, &vs); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Type != "event" || v.Extra {
			continue
		}
		b, err := hex.DecodeString(v.Hex)
		if err != nil {
			t.Fatal(err)
		}
		if !checkRead(t, b) {
			t.Errorf("%s: readEvent left it to reflection", v.Name)
		}
		n++
	}
	if n == 0 {
		t.Fatal("no event vectors")
	}
}

func FuzzReadEvent(f *testing.F) {
	for _, b := range readInputs(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkRead(t, b) })
}

func TestReadEventDoesNotAllocateKeys(t *testing.T) {
	b := encodeMap(t, []any{"v", 1, "k", 6, "tn", "", "run", "", "seq", 3, "ts", 1, "unknown", 1.5})
	var ev Event
	if n := testing.AllocsPerRun(100, func() {
		ev = Event{}
		if !readEvent(b, &ev) {
			t.Fatal("not read")
		}
	}); n != 0 {
		t.Fatalf("a heartbeat with empty strings costs %v allocations, want 0", n)
	}
}
