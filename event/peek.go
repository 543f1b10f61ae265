package event

import "encoding/binary"

// PeekCall reads the call id, seq and ts of a payload that need not decode
// as an event, for the reject of a call event sent to the dead letters. It
// never decodes more than those three values, whatever the payload holds:
// ok is true when b is a msgpack map of string keys whose lengths all fit
// in b, however deep it nests, and whose last "call" is a string. seq and ts are their values if
// they are integers of at least 0 that fit an int64, else 0. Use it
// instead of a generic msgpack decode, which sizes maps and slices by the
// lengths the payload claims.
func PeekCall(b []byte) (call string, seq, ts int64, ok bool) {
	if len(b) == 0 || !isMap(b[0]) || !lengthsFit(b) {
		return "", 0, 0, false
	}
	m, _ := readHead(b, 0)
	i := m.body
	for range m.n {
		k, _ := readHead(b, i) // checkShape read every header
		if k.kind != headStr {
			return "", 0, 0, false
		}
		at := k.body + k.n
		v, _ := readHead(b, at)
		switch string(b[k.body:at]) {
		case "call":
			call, ok = "", v.kind == headStr
			if ok {
				call = string(b[v.body : v.body+v.n])
			}
		case "seq":
			seq = uintAt(b, at)
		case "ts":
			ts = uintAt(b, at)
		}
		i = skipValue(b, at)
	}
	return call, seq, ts, ok
}

// lengthsFit reports whether b is one msgpack value every header of which
// can be read and claims no more elements than bytes follow it. Unlike
// checkShape it sets no bound on nesting: it keeps one count of the values
// still to read, not one per level, so a call nested too deep to decode
// can still be read for its reject.
func lengthsFit(b []byte) bool {
	i := 0
	for left := 1; left > 0; left-- {
		h, ok := readHead(b, i)
		if !ok {
			return false
		}
		switch h.kind {
		case headMap, headArray:
			n := h.n
			if h.kind == headMap {
				n *= 2
			}
			if n > len(b)-h.body {
				return false
			}
			left, i = left+n, h.body
		default:
			i = h.body + h.n
		}
	}
	return true
}

// skipValue returns the index just past the value at b[i], whose lengths
// lengthsFit has checked.
func skipValue(b []byte, i int) int {
	for left := 1; left > 0; left-- {
		h, _ := readHead(b, i)
		switch h.kind {
		case headMap:
			left, i = left+2*h.n, h.body
		case headArray:
			left, i = left+h.n, h.body
		default:
			i = h.body + h.n
		}
	}
	return i
}

// uintAt returns the integer at b[i] if it is at least 0 and fits an
// int64, else 0.
func uintAt(b []byte, i int) int64 {
	c := b[i]
	var n uint64
	switch {
	case c <= 0x7f:
		return int64(c)
	case c == 0xcc || c == 0xd0:
		n = uint64(b[i+1])
		if c == 0xd0 {
			n = uint64(int64(int8(b[i+1])))
		}
	case c == 0xcd || c == 0xd1:
		n = uint64(binary.BigEndian.Uint16(b[i+1:]))
		if c == 0xd1 {
			n = uint64(int64(int16(n)))
		}
	case c == 0xce || c == 0xd2:
		n = uint64(binary.BigEndian.Uint32(b[i+1:]))
		if c == 0xd2 {
			n = uint64(int64(int32(n)))
		}
	case c == 0xcf || c == 0xd3:
		n = binary.BigEndian.Uint64(b[i+1:])
	default:
		return 0
	}
	if int64(n) < 0 {
		return 0
	}
	return int64(n)
}
