package jsonlex

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestString(t *testing.T) {
	for _, tc := range []struct {
		in    string
		end   int
		plain bool
		f     Fault
		value string
	}{
		{`"abc"x`, 5, true, OK, "abc"},
		{`"a\"b"`, 6, false, OK, `a"b`},
		{`"\u0041\n"`, 10, false, OK, "A\n"},
		{`"\ud83d\ude00"`, 14, false, OK, "😀"},
		{`"\ud83d"`, 8, false, OK, "\ufffd"},
		{`"\ud83dx"`, 9, false, OK, "\ufffdx"},
		{"\"caf\xc3\xa9\"", 7, true, OK, "café"},
		{"\"a\xffb\"", 5, false, OK, "a\ufffdb"},
		{`"abc`, 4, false, End, ""},
		{"\"a\nb\"", 2, false, Control, ""},
		{`"\x"`, 2, false, Escape, ""},
		{`"\u12g4"`, 3, false, Hex, ""},
		{`"\u12`, 3, false, End, ""},
		{`"\`, 2, false, End, ""},
	} {
		end, plain, f := String(tc.in, 0)
		if end != tc.end || plain != tc.plain || f != tc.f {
			t.Errorf("String(%q) = %d, %t, %d; want %d, %t, %d", tc.in, end, plain, f, tc.end, tc.plain, tc.f)
			continue
		}
		if f == OK {
			if got := string(Unescape(nil, tc.in[1:end-1])); got != tc.value {
				t.Errorf("Unescape(%q) = %q, want %q", tc.in, got, tc.value)
			}
		}
	}
}

func TestNumber(t *testing.T) {
	for _, tc := range []struct {
		in  string
		end int
		f   Fault
	}{
		{"0", 1, OK}, {"-0", 2, OK}, {"12.5e-3,", 7, OK}, {"1E+9]", 4, OK}, {"01", 1, OK},
		{"-", 1, End}, {"1.", 2, End}, {"1.x", 2, Syntax}, {"1e", 2, End}, {"1e+", 3, End}, {"-a", 1, Syntax},
	} {
		if end, f := Number(tc.in, 0); end != tc.end || f != tc.f {
			t.Errorf("Number(%q) = %d, %d; want %d, %d", tc.in, end, f, tc.end, tc.f)
		}
	}
	if !NumberInRange("1e400") || NumberInRange("1e401") || NumberInRange("1E-999") {
		t.Error("NumberInRange misjudges exponents")
	}
}

func TestKeyword(t *testing.T) {
	for in, want := range map[string]Fault{"true": OK, "false,": OK, "null]": OK, "tru": End, "nul1": Syntax} {
		if _, f := Keyword(in, 0); f != want {
			t.Errorf("Keyword(%q) = %d, want %d", in, f, want)
		}
	}
}

func TestNoAllocs(t *testing.T) {
	buf := make([]byte, 0, 64)
	var end int
	if n := testing.AllocsPerRun(100, func() {
		String(`"plain text"`, 0)
		end, _ = Number("-12.5e3", 0)
		buf = Unescape(buf[:0], `a\u0041\n`)
	}); n != 0 || end != 7 {
		t.Errorf("%v allocations, number ends at %d", n, end)
	}
}

// FuzzString checks String and Unescape against encoding/json, and the
// eight-bytes-at-a-time skip of ordinary bytes against a rune-by-rune
// search, from every offset.
func FuzzString(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\ud83d\ude00"`, "\"\xff\"", `"\ud800\u0041"`, `"\/\b\f"`, `"0123456789abcdef\"x"`, "\"01234567\x7f\x80é\x01\"", `"0123456"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) == 0 || s[0] != '"' {
			return
		}
		for j := range len(s) + 1 {
			want := len(s)
			if k := strings.IndexFunc(s[j:], needsLook); k >= 0 {
				want = j + k
			}
			if got := ordinary(s, j); got != want {
				t.Fatalf("ordinary(%q, %d) = %d, want %d", s, j, got, want)
			}
		}
		end, plain, fault := String(s, 0)
		var want string
		err := json.Unmarshal([]byte(s[:min(end, len(s))]), &want)
		if fault != OK {
			if err == nil && end == len(s) {
				t.Fatalf("String(%q) faulted (%d at %d); encoding/json accepts it", s, fault, end)
			}
			return
		}
		if err != nil {
			t.Fatalf("String(%q) accepted %q; encoding/json: %v", s, s[:end], err)
		}
		got := string(Unescape(nil, s[1:end-1]))
		if got != want {
			t.Fatalf("Unescape(%q) = %q, encoding/json %q", s[:end], got, want)
		}
		if plain && got != s[1:end-1] {
			t.Fatalf("String(%q) said plain, but the value differs", s[:end])
		}
	})
}

func TestDeeper(t *testing.T) {
	tests := []struct {
		s     string
		limit int
		want  bool
	}{
		{`{"a":[1,{"b":[]}]}`, 4, false},
		{`{"a":[1,{"b":[]}]}`, 3, true},
		{`{"a":"[[[[[[[[["}`, 1, false},
		{`{"a":"\"[[[["}`, 1, false},
		{`[[[]]][[[]]]`, 3, false},
		{`]]]][[[`, 2, true},
		{"\"\x01[[[", 2, true}, // a control character ends the literal
		{`"[[[[`, 2, false},    // an unterminated literal runs to the end
		{strings.Repeat("[", 1<<20), 64, true},
	}
	for _, tt := range tests {
		if got := Deeper(tt.s, tt.limit); got != tt.want {
			t.Errorf("Deeper(%.40q, %d) = %t, want %t", tt.s, tt.limit, got, tt.want)
		}
	}
}

// FuzzDeeper checks Deeper against encoding/json on valid JSON: text that
// nests deeper than encoding/json's own limit is never reported shallow.
func FuzzDeeper(f *testing.F) {
	for _, s := range []string{`{"a":[[1]]}`, `"[\"["`, `[{"[":"]"}]`, "[\"\\u12[\"]"} {
		f.Add(s, uint8(1))
	}
	f.Fuzz(func(t *testing.T, s string, limit uint8) {
		deeper := Deeper(s, int(limit))
		var v any
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if got := depthOf(v); (got > int(limit)) != deeper {
			t.Fatalf("Deeper(%q, %d) = %t; the value nests %d deep", s, limit, deeper, got)
		}
	})
}

// depthOf returns how deep arrays and objects nest in a decoded value.
func depthOf(v any) int {
	d := 0
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
		return d + 1
	case map[string]any:
		for _, e := range v {
			d = max(d, depthOf(e))
		}
		return d + 1
	}
	return 0
}

// needsLook reports whether a string literal's scan must look at r: a
// quote, a backslash, a control character, or anything not ASCII (an
// invalid byte decodes as U+FFFD).
func needsLook(r rune) bool { return r == '"' || r == '\\' || r < 0x20 || r >= utf8.RuneSelf }

// BenchmarkString measures scanning a literal of tool arguments: a path
// and a query of plain text, the common case.
func BenchmarkString(b *testing.B) {
	s := `"src/pkg7/file12.go: find the function that handles the request and the place it is called from"`
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		String(s, 0)
	}
}
