package event

import (
	"encoding/binary"
	"fmt"
)

// MaxNesting is the deepest nesting of msgpack maps and arrays a payload
// may have. The contract's own fields nest at most three deep (an event,
// its tools, a declared schema); the rest is room for keys a later version
// adds.
const MaxNesting = 16

// checkShape walks b as one msgpack value without decoding it, before
// anything is decoded. A generic msgpack decoder recurses once per level
// and sizes a map or an array by the length its header claims, so a few
// bytes that claim four billion elements, or a payload of nested
// one-element arrays, would exhaust the memory or the stack of whoever
// decodes them. checkShape refuses such a payload first: a length that
// more bytes would have to follow than b holds is ErrUndecodable, nesting
// deeper than MaxNesting is ErrLimit, named by the top-level key it is
// under. It runs in time linear in the number of values and allocates
// nothing.
func checkShape(b []byte) error {
	var (
		left  [MaxNesting + 1]int // values still to read in each open map or array; left[0]: the payload itself
		depth int
		key   []byte // the last top-level key read, if the payload is a map
	)
	topMap := len(b) > 0 && isMap(b[0])
	left[0] = 1
	i := 0
	for {
		for depth >= 0 && left[depth] == 0 {
			depth--
		}
		if depth < 0 {
			return nil // trailing bytes are the decoder's to report
		}
		isKey := topMap && depth == 1 && left[1]%2 == 0
		left[depth]--
		at := i
		h, ok := readHead(b, i)
		if !ok {
			return fmt.Errorf("%w: the payload ends inside a value at byte %d of %d", ErrUndecodable, i, len(b))
		}
		if isKey && h.kind == headStr {
			key = b[h.body : h.body+h.n]
		}
		if h.kind != headMap && h.kind != headArray {
			i = h.body + h.n
			continue
		}
		i = h.body
		n := h.n
		if h.kind == headMap {
			n *= 2
		}
		if n > len(b)-i { // every value takes a byte at least
			return fmt.Errorf("%w: a map or array at byte %d claims %d elements, but only %d bytes follow", ErrUndecodable, at, h.n, len(b)-i)
		}
		if depth == MaxNesting {
			return overLimit(string(key), "maps and arrays nest more than %d deep", MaxNesting)
		}
		depth++
		left[depth] = n
	}
}

// Kinds of msgpack value, as readHead tells them apart.
const (
	headScalar = iota // nil, booleans, integers, floats, extensions
	headStr
	headBin
	headArray
	headMap
)

// head is the header of one msgpack value: its kind, where its body starts
// and n, the bytes of its body, or, for a map or an array, its entries or
// elements.
type head struct {
	kind int
	body int
	n    int
}

// scalarWidths are the bytes after the codes of float 32 and 64, uint 8
// to 64 and int 8 to 64, 0xca to 0xd3.
var scalarWidths = [...]int{4, 8, 1, 2, 4, 8, 1, 2, 4, 8}

// readHead reads the header of the value at b[i]. It is false when b ends
// inside the header or, for a value other than a map or an array, inside
// the body, and for the byte 0xc1, which msgpack never uses.
func readHead(b []byte, i int) (head, bool) {
	if i >= len(b) {
		return head{}, false
	}
	c := b[i]
	var h head
	var size int // bytes of the length field after c
	switch {
	case c <= 0x7f || c >= 0xe0: // positive and negative fixint
		return head{kind: headScalar, body: i + 1}, true
	case c <= 0x8f:
		return head{kind: headMap, body: i + 1, n: int(c & 0x0f)}, true
	case c <= 0x9f:
		return head{kind: headArray, body: i + 1, n: int(c & 0x0f)}, true
	case c <= 0xbf:
		h = head{kind: headStr, body: i + 1, n: int(c & 0x1f)}
	case c == 0xc0 || c == 0xc2 || c == 0xc3:
		return head{kind: headScalar, body: i + 1}, true
	case c == 0xc1:
		return head{}, false
	case c <= 0xc6: // bin 8, 16, 32
		h.kind, size = headBin, 1<<(c-0xc4)
	case c <= 0xc9: // ext 8, 16, 32: the length, then a type byte
		h.kind, size = headScalar, 1<<(c-0xc7)
	case c <= 0xd3: // float 32, 64; uint and int 8 to 64
		h = head{kind: headScalar, body: i + 1, n: scalarWidths[c-0xca]}
	case c <= 0xd8: // fixext 1 to 16: a type byte and the data
		h = head{kind: headScalar, body: i + 1, n: 1 + 1<<(c-0xd4)}
	case c <= 0xdb: // str 8, 16, 32
		h.kind, size = headStr, 1<<(c-0xd9)
	case c <= 0xdd: // array 16, 32
		h.kind, size = headArray, 2<<(c-0xdc)
	default: // map 16, 32
		h.kind, size = headMap, 2<<(c-0xde)
	}
	if size > 0 {
		if len(b)-i-1 < size {
			return head{}, false
		}
		f := b[i+1 : i+1+size]
		switch size {
		case 1:
			h.n = int(f[0])
		case 2:
			h.n = int(binary.BigEndian.Uint16(f))
		default:
			h.n = int(binary.BigEndian.Uint32(f))
		}
		h.body = i + 1 + size
		if c >= 0xc7 && c <= 0xc9 {
			h.n++ // the extension's type byte
		}
	}
	if h.kind != headMap && h.kind != headArray && h.n > len(b)-h.body {
		return head{}, false
	}
	return h, true
}
