package event

import (
	"encoding/binary"
	"math"
)

// readEvent decodes the map b into ev, which must be zero, exactly as
// msgpack's reflection would from Event's tags, but without reflection:
// every event guard-consumer handles is decoded, and reflection (with
// checkShape's walk before it) cost it 2.2–2.6 µs an event, this 0.6 µs.
//
// It reads what encoders send — a map of string keys with values of the
// fields' types, nil for zero, unknown keys with scalar values skipped —
// and gives up, returning false, on anything else: a value of another
// type, a kind code out of range, a struct sent as an array, a repeated
// key of a slice or pointer field (which reflection merges), an unknown
// key holding a map or an array, trailing bytes. The caller then checks
// b's shape and decodes it with reflection, which decodes it or says what
// is wrong. What it reads nests at most three deep and is bounds-checked
// as it goes, so it needs no checkShape first: every payload it reads,
// checkShape accepts. TestReadEventMatchesReflection and FuzzReadEvent
// hold the two paths to the same result.
func readEvent(b []byte, ev *Event) bool {
	r := wireReader{b: b, ok: true}
	for n := r.mapLen(); n > 0 && r.ok; n-- {
		switch string(r.key()) {
		case "v":
			ev.V = int(r.int())
		case "k":
			k := r.int()
			r.ok = r.ok && k >= 1 && k <= math.MaxUint8
			ev.Kind = Kind(k)
		case "tn":
			ev.Tenant = r.str()
		case "run":
			ev.Run = r.str()
		case "seq":
			ev.Seq = r.int()
		case "ts":
			ev.TS = r.int()
		case "agent":
			ev.Agent = r.str()
		case "lease":
			ev.Lease = r.int()
		case "ws":
			ev.Workspace = r.str()
		case "pattern":
			ev.Pattern = r.str()
		case "tools":
			ev.Tools = r.schemas(ev.Tools)
		case "docs":
			ev.Docs = r.schemas(ev.Docs)
		case "outputs":
			ev.Outputs = r.strs(ev.Outputs)
		case "status":
			ev.Status = Status(r.str())
		case "step":
			ev.Step = r.int()
		case "turn":
			ev.Turn = r.int()
		case "tin":
			ev.TokensIn = r.int()
		case "tout":
			ev.TokensOut = r.int()
		case "cost":
			ev.Cost = r.int()
		case "ctx":
			ev.Context = r.int()
		case "win":
			ev.Window = r.int()
		case "plan":
			ev.Planning = r.bool()
		case "doc":
			ev.Doc = r.str()
		case "schema":
			ev.DocSchema = r.str()
		case "tdig":
			ev.TextDig = r.str()
		case "call":
			ev.Call = r.str()
		case "tool":
			ev.Tool = r.str()
		case "args":
			ev.Args = r.str()
		case "path":
			ev.Path = r.str()
		case "err":
			ev.Err = r.bool()
		case "out":
			ev.Out = r.str()
		case "ref":
			ev.Ref = object(&r, ev.Ref, r.outputRef)
		case "exit":
			ev.Exit = r.int()
		case "verify":
			ev.Verify = r.bool()
		case "chg":
			ev.Changes = object(&r, ev.Changes, r.changes)
		case "abandoned":
			ev.Abandoned = r.bool()
		case "calls":
			ev.Calls = r.strs(ev.Calls)
		case "wait":
			ev.Wait = r.int()
		case "timer":
			ev.Timer = r.str()
		case "gen":
			ev.Gen = r.int()
		case "by":
			ev.By = r.str()
		case "why":
			ev.Why = r.str()
		default:
			r.skip()
		}
	}
	return r.ok && r.i == len(b)
}

// wireReader reads msgpack values from b in order. Once a value is not
// what was asked for, ok turns false for good and every read returns zero.
type wireReader struct {
	b  []byte
	i  int
	ok bool
}

// next reads the header of the next value and moves past the header. The
// body of a string or a scalar is in b; a map or an array claims no more
// entries than bytes follow.
func (r *wireReader) next() head {
	if !r.ok {
		return head{}
	}
	h, ok := readHead(r.b, r.i)
	n := h.n
	if h.kind == headMap {
		n *= 2
	}
	r.ok = ok && ((h.kind != headMap && h.kind != headArray) || n <= len(r.b)-h.body)
	r.i = h.body
	return h
}

func (r *wireReader) isNil() bool { return r.ok && r.i < len(r.b) && r.b[r.i] == 0xc0 }

// mapLen reads a map header; -1 says nil.
func (r *wireReader) mapLen() int {
	if r.isNil() {
		r.i++
		return -1
	}
	h := r.next()
	r.ok = r.ok && h.kind == headMap
	return h.n
}

// arrayLen reads an array header; -1 says nil.
func (r *wireReader) arrayLen() int {
	if r.isNil() {
		r.i++
		return -1
	}
	h := r.next()
	r.ok = r.ok && h.kind == headArray
	return h.n
}

// key reads a map key: a string, or bin as text. A fixstr, which nearly
// every key and value is, is read without readHead.
func (r *wireReader) key() []byte {
	if r.ok && r.i < len(r.b) && r.b[r.i]&0xe0 == 0xa0 {
		start := r.i + 1
		end := start + int(r.b[r.i]&0x1f)
		if end <= len(r.b) {
			r.i = end
			return r.b[start:end]
		}
	}
	h := r.next()
	if !r.ok || (h.kind != headStr && h.kind != headBin) {
		r.ok = false
		return nil
	}
	r.i += h.n
	return r.b[h.body:r.i]
}

func (r *wireReader) str() string {
	if r.isNil() {
		r.i++
		return ""
	}
	return string(r.key())
}

func (r *wireReader) bool() bool {
	if !r.ok || r.i >= len(r.b) {
		r.ok = false
		return false
	}
	c := r.b[r.i]
	r.i++
	r.ok = c == 0xc0 || c == 0xc2 || c == 0xc3
	return c == 0xc3
}

// int reads an integer of any width, as an int64 the way msgpack's
// DecodeInt64 does: a uint 64 above the int64 range wraps.
func (r *wireReader) int() int64 {
	if !r.ok || r.i >= len(r.b) {
		r.ok = false
		return 0
	}
	c := r.b[r.i]
	switch {
	case c <= 0x7f || c >= 0xe0:
		r.i++
		return int64(int8(c))
	case c == 0xc0:
		r.i++
		return 0
	case c < 0xcc || c > 0xd3: // not an integer: floats are 0xca and 0xcb
		r.ok = false
		return 0
	}
	h := r.next()
	if !r.ok {
		return 0
	}
	f := r.b[h.body : h.body+h.n]
	r.i = h.body + h.n
	switch c {
	case 0xcc:
		return int64(f[0])
	case 0xcd:
		return int64(binary.BigEndian.Uint16(f))
	case 0xce:
		return int64(binary.BigEndian.Uint32(f))
	case 0xd0:
		return int64(int8(f[0]))
	case 0xd1:
		return int64(int16(binary.BigEndian.Uint16(f)))
	case 0xd2:
		return int64(int32(binary.BigEndian.Uint32(f)))
	}
	return int64(binary.BigEndian.Uint64(f)) // 0xcf, 0xd3
}

// skip moves past the next value, which must not be a map or an array.
func (r *wireReader) skip() {
	h := r.next()
	r.ok = r.ok && h.kind != headMap && h.kind != headArray
	r.i += h.n
}

// strs reads an array of strings into a fresh slice, as reflection does
// into a nil one; a repeated key (old not nil) gives up.
func (r *wireReader) strs(old []string) []string {
	n := r.arrayLen()
	if n < 0 || !r.ok {
		return old
	}
	if old != nil {
		r.ok = false
		return old
	}
	s := make([]string, 0, n)
	for range n {
		s = append(s, r.str())
	}
	return s
}

// schemas reads an array of Schema maps; nil elements are zero.
func (r *wireReader) schemas(old []Schema) []Schema {
	n := r.arrayLen()
	if n < 0 || !r.ok || old != nil {
		r.ok = r.ok && old == nil
		return nil
	}
	s := make([]Schema, n)
	for i := range s {
		r.fields(func(key []byte) {
			switch string(key) {
			case "name":
				s[i].Name = r.str()
			case "schema":
				s[i].Schema = r.str()
			case "kind":
				s[i].Kind = ToolKind(r.str())
			default:
				r.skip()
			}
		})
	}
	return s
}

// fields reads a map, nil for none, calling field with each key; field
// reads the key's value.
func (r *wireReader) fields(field func(key []byte)) {
	for m := r.mapLen(); m > 0 && r.ok; m-- {
		field(r.key())
	}
}

// object reads a map into a new *T, as reflection does into a nil
// pointer, with field reading each entry; nil stays nil, and a repeated
// key (old not nil) gives up.
func object[T any](r *wireReader, old *T, field func(v *T, key []byte)) *T {
	if r.isNil() || old != nil {
		r.ok = r.ok && old == nil
		r.i++
		return nil
	}
	v := new(T)
	r.fields(func(key []byte) { field(v, key) })
	return v
}

func (r *wireReader) outputRef(ref *OutputRef, key []byte) {
	switch string(key) {
	case "dig":
		ref.Digest = r.str()
	case "size":
		ref.Size = r.int()
	default:
		r.skip()
	}
}

func (r *wireReader) changes(c *Changes, key []byte) {
	switch string(key) {
	case "files":
		c.Files = r.int()
	case "lines":
		c.Lines = r.int()
	case "hunks":
		c.Hunks = r.int()
	case "paths":
		c.Paths = r.strs(c.Paths)
	default:
		r.skip()
	}
}
