package canon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzHashOrderFree checks the invariants loop detection relies on, on
// arbitrary JSON: writing the same value another way (members of every
// object in another order, other whitespace, characters escaped as \u)
// keeps its hash, and changing one string in it changes the hash.
func FuzzHashOrderFree(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null],"c":{"d":"x","e":-0.5}}`, `[{"k":"v","l":[]},{}]`, `{"path":"src/é.go","n":1e2}`, `"x"`, `{"a":{"a":{"a":"a"}}}`} {
		f.Add(s, uint8(0))
		f.Add(s, uint8(0xff))
	}
	f.Fuzz(func(t *testing.T, s string, how uint8) {
		h, ok := Hash(s)
		if !ok || strings.TrimSpace(s) == "" {
			return
		}
		d := json.NewDecoder(strings.NewReader(s))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return
		}
		var other bytes.Buffer
		rewrite(&other, v, how)
		if h2, ok2 := Hash(other.String()); !ok2 || h2 != h {
			t.Fatalf("Hash(%q) = %x; written as %q it is %x, %t", s, h, other.String(), h2, ok2)
		}
		var changed bytes.Buffer
		if !rewriteChanged(&changed, v) {
			return // no string to change
		}
		if h3, _ := Hash(changed.String()); h3 == h {
			t.Fatalf("Hash(%q) = Hash(%q) = %x, with a string changed", s, changed.String(), h)
		}
	})
}

// rewrite writes v as JSON, the way how says: bit 0 reverses the members
// of objects, bit 1 rotates them by one, bit 2 puts whitespace around
// every token, bit 3 escapes every non-ASCII character and every letter
// of strings and keys as \u.
func rewrite(b *bytes.Buffer, v any, how uint8) {
	sp := ""
	if how&4 != 0 {
		sp = " \n\t"
	}
	b.WriteString(sp)
	switch v := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if how&1 != 0 {
			for i, j := 0, len(keys)-1; i < j; i, j = i+1, j-1 {
				keys[i], keys[j] = keys[j], keys[i]
			}
		}
		if how&2 != 0 && len(keys) > 1 {
			keys = append(keys[1:], keys[0])
		}
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(sp + "," + sp)
			}
			writeString(b, k, how&8 != 0)
			b.WriteString(sp + ":")
			rewrite(b, v[k], how)
		}
		b.WriteString(sp + "}")
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteString(sp + ",")
			}
			rewrite(b, e, how)
		}
		b.WriteString(sp + "]")
	case string:
		writeString(b, v, how&8 != 0)
	case json.Number:
		b.WriteString(v.String())
	default:
		j, _ := json.Marshal(v)
		b.Write(j)
	}
	b.WriteString(sp)
}

// rewriteChanged writes v with its first string, in document order, one
// character longer, and reports whether it had one.
func rewriteChanged(b *bytes.Buffer, v any) bool {
	done := false
	var walk func(v any) any
	walk = func(v any) any {
		if done {
			return v
		}
		switch x := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			out := make(map[string]any, len(x))
			for _, k := range keys {
				out[k] = walk(x[k])
			}
			return out
		case []any:
			out := make([]any, len(x))
			for i, e := range x {
				out[i] = walk(e)
			}
			return out
		case string:
			done = true
			return x + "~"
		}
		return v
	}
	w := walk(v)
	rewrite(b, w, 0)
	return done
}

func writeString(b *bytes.Buffer, s string, escape bool) {
	if !escape {
		j, _ := json.Marshal(s)
		b.Write(j)
		return
	}
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r > 0xffff:
			r -= 0x10000
			fmt.Fprintf(b, `\u%04x\u%04x`, 0xd800+(r>>10), 0xdc00+(r&0x3ff))
		default:
			fmt.Fprintf(b, `\u%04x`, r)
		}
	}
	b.WriteByte('"')
}

// TestHashRepeatedKeysMany: last-wins holds in objects with more members
// than the parser keeps inline, and nested ones.
func TestHashRepeatedKeysMany(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("{")
	b.WriteString("{")
	for i := range 100 {
		fmt.Fprintf(&a, `"k%d":{"x":%d,"x":[%d]},`, i%40, i, i)
		if i >= 60 {
			fmt.Fprintf(&b, `"k%d":{"x":[%d]},`, i%40, i)
		}
	}
	a.WriteString(`"z":0}`)
	b.WriteString(`"z":0}`)
	ha, _ := Hash(a.String())
	hb, _ := Hash(b.String())
	if ha != hb {
		t.Errorf("100 members over 40 keys hash as %x, their last values as %x", ha, hb)
	}
}
