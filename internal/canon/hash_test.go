package canon

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/jsonlex"
)

func TestHashEquivalent(t *testing.T) {
	groups := [][]string{
		{`{"a":1,"b":2}`, `{"b":2,"a":1}`, " { \"a\" : 1 ,\n\t\"b\":2 } ", `{"a":1.0,"b":2e0}`, `{"a":10E-1,"b":0.2e1}`},
		{`{"path":"a/b"}`, `{"path":"a\/b"}`, `{"\u0070ath":"\u0061/b"}`},
		{`[1,2,3]`, `[ 1 , 2 , 3 ]`, `[1.0,2,3e0]`},
		{`"\ud83d\ude00"`, `"😀"`},
		{`{}`, ``, `  `, `{ }`},
		{`-0`, `0`, `0.0`},
		{`{"a":{"x":[true,false,null]},"b":"s"}`, `{"b":"s","a":{"x":[true,false,null]}}`},
		// A repeated key counts once, with its last value, as decoders read it.
		{`{"a":1}`, `{"a":1,"a":1}`, `{"a":2,"a":1}`, `{"a":{"b":[1]},"a":1}`, `{"a":1,"\u0061":1}`},
		{`{"a":1,"b":2}`, `{"a":0,"b":2,"a":1}`, `{"b":9,"a":0,"b":2,"a":1}`},
	}
	for _, g := range groups {
		want, ok := Hash(g[0])
		if !ok {
			t.Fatalf("Hash(%q) not valid JSON", g[0])
		}
		for _, s := range g[1:] {
			if got, _ := Hash(s); got != want {
				t.Errorf("Hash(%q) = %x, Hash(%q) = %x; want equal", s, got, g[0], want)
			}
		}
	}
}

func TestHashDistinct(t *testing.T) {
	values := []string{
		`{"a":1}`, `{"a":"1"}`, `{"a":2}`, `{"b":1}`, `{"a":[1]}`, `[1,2]`, `[2,1]`,
		`{"a":1,"b":2}`, `{"a":2,"b":1}`, `1`, `"1"`, `true`, `false`, `null`,
		`{"a":0.1}`, `{"a":0.10000000000000002}`, `""`, `"a"`, `[]`, `[[]]`, `[{}]`, `{"":{}}`,
	}
	seen := map[uint64]string{}
	for _, v := range values {
		h, ok := Hash(v)
		if !ok {
			t.Fatalf("Hash(%q) not valid JSON", v)
		}
		if prev, dup := seen[h]; dup {
			t.Errorf("Hash(%q) == Hash(%q)", v, prev)
		}
		seen[h] = v
	}
}

func TestHashInvalid(t *testing.T) {
	for _, s := range []string{`{`, `{"a"}`, `{"a":}`, `[1,]`, `01`, `-`, `1.`, `1e`, `"abc`, `"\x"`, `{"a":1}x`, `tru`, "\"a\x01\"", `{"a":"\u12"}`} {
		if _, ok := Hash(s); ok {
			t.Errorf("Hash(%q) reported valid JSON", s)
		}
	}
	a, _ := Hash(" {oops ")
	b, _ := Hash("{oops")
	if a != b {
		t.Errorf("invalid text hashes should ignore surrounding whitespace")
	}
}

func TestHashDepthLimit(t *testing.T) {
	deep := ""
	for i := 0; i <= MaxDepth+1; i++ {
		deep = "[" + deep + "]"
	}
	if _, ok := Hash(deep); ok {
		t.Errorf("nesting deeper than MaxDepth accepted")
	}
}

func TestHashNoAllocs(t *testing.T) {
	s := `{"path":"src/main.go","lines":[1,2,3],"opts":{"recursive":true,"pattern":"fo\u006f"}}`
	if n := testing.AllocsPerRun(100, func() { Hash(s) }); n != 0 {
		t.Errorf("Hash allocates %v times per call", n)
	}
}

// FuzzHash checks that Hash never panics and that re-encoding valid JSON
// with encoding/json, which reorders keys and reformats numbers and
// escapes, keeps the hash.
func FuzzHash(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null]}`, `[1.5e3,"x\n"]`, `"\u00e9"`, `{"z":{"y":{"x":-0.0}}}`, `12345678901234567890`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, ok := Hash(s)
		if !ok {
			return
		}
		if trimSpace(s) == "" {
			return
		}
		if !json.Valid([]byte(s)) {
			t.Fatalf("Hash accepted %q, which is not valid JSON", s)
		}
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			return // valid JSON whose numbers overflow a float64
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Skip()
		}
		if h2, ok2 := Hash(string(b)); !ok2 || h2 != h {
			t.Fatalf("Hash(%q) = %x, Hash(%q) = %x", s, h, b, h2)
		}
	})
}

func TestHashIgnoring(t *testing.T) {
	ignore := []uint64{KeyHash("task_progress")}
	want, _ := Hash(`{"path":"a.go"}`)
	for _, s := range []string{
		`{"path":"a.go","task_progress":"1/3"}`,
		`{"task_progress":{"done":2},"path":"a.go"}`,
		`{"path":"a.go","task_\u0070rogress":null}`,
	} {
		if got, ok := HashIgnoring(s, ignore); !ok || got != want {
			t.Errorf("HashIgnoring(%q) = %x, %v; want the hash of {\"path\":\"a.go\"} %x", s, got, ok, want)
		}
	}
	nested, _ := HashIgnoring(`{"path":"a.go","opts":{"task_progress":1}}`, ignore)
	if nested == want {
		t.Error("a nested member with an ignored key was left out; only top-level members are")
	}
	if n := testing.AllocsPerRun(100, func() { HashIgnoring(`{"path":"a.go","task_progress":"1/3"}`, ignore) }); n != 0 {
		t.Errorf("HashIgnoring allocates %v times", n)
	}
}

// TestHashesTheWiresDeepest: arguments nested as deep as the wire lets a
// call's args be (event.MaxJSONDepth) hash canonically, so that the guards
// never fall back to the raw text for a call they were sent; one level
// more is what the wire refuses.
func TestHashesTheWiresDeepest(t *testing.T) {
	d := event.MaxJSONDepth
	for _, s := range []string{
		strings.Repeat("[", d) + "0" + strings.Repeat("]", d),
		strings.Repeat(`{"a":`, d) + `"x"` + strings.Repeat("}", d),
	} {
		if jsonlex.Deeper(s, d) {
			t.Fatalf("the wire refuses %d levels: %.20q…", d, s)
		}
		if _, ok := Hash(s); !ok {
			t.Errorf("%d levels, which the wire accepts, do not hash canonically: %.20q…", d, s)
		}
		if deeper := "[" + s + "]"; !jsonlex.Deeper(deeper, d) {
			t.Errorf("the wire accepts %d levels: %.20q…", d+1, deeper)
		}
	}
}
