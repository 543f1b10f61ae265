package canon

import (
	"cmp"
	"encoding/binary"
	"math"
	"slices"
	"strconv"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/internal/jsonlex"
)

// MaxDepth is the deepest nesting of arrays and objects Hash accepts.
const MaxDepth = 64

// Type tags keep values of different types apart: "1" and 1 differ.
const (
	tagNull   = 'n'
	tagTrue   = 't'
	tagFalse  = 'f'
	tagInt    = 'i'
	tagFloat  = 'd'
	tagString = 's'
	tagArray  = 'a'
	tagObject = 'o'
	tagRaw    = 'r'
)

// Hash returns the canonical hash of the JSON text s and true, or, when s is
// not valid JSON, a hash of s with surrounding whitespace trimmed and false.
// Empty or all-whitespace text hashes like an empty object, since a call
// without arguments and a call with {} mean the same.
func Hash(s string) (uint64, bool) { return HashIgnoring(s, nil) }

// HashIgnoring is Hash with the members of the top-level object whose keys
// hash (KeyHash) to one of ignore left out, so that {"q":1,"note":"x"}
// ignoring "note" hashes like {"q":1}. Keys are compared after unescaping;
// nested objects keep every member. It allocates nothing.
func HashIgnoring(s string, ignore []uint64) (uint64, bool) {
	p := parser{s: s, ignore: ignore}
	p.skipSpace()
	if p.i == len(s) {
		return hashObject(0), true
	}
	h, ok := p.value(0)
	if ok {
		p.skipSpace()
		ok = p.i == len(s)
	}
	if !ok {
		return rawHash(trimSpace(s)), false
	}
	return h, true
}

// Combine mixes hashes in order into one, for signatures built of parts:
// the xxhash of their little-endian bytes, one after the other.
func Combine(hs ...uint64) uint64 {
	var buf [8 * 8]byte
	if len(hs) <= 8 {
		b := buf[:0]
		for _, h := range hs {
			b = binary.LittleEndian.AppendUint64(b, h)
		}
		return xxhash.Sum64(b)
	}
	b := buf[:0]
	var d xxhash.Digest
	d.Reset()
	for _, h := range hs {
		if len(b) == cap(b) {
			_, _ = d.Write(b)
			b = b[:0]
		}
		b = binary.LittleEndian.AppendUint64(b, h)
	}
	_, _ = d.Write(b)
	return d.Sum64()
}

// KeyHash returns the hash HashIgnoring compares object keys by.
func KeyHash(key string) uint64 { return xxhash.Sum64String(key) }

type parser struct {
	s      string
	i      int
	ignore []uint64 // key hashes of top-level members to leave out
	// The members of the objects being read, innermost last, for an
	// object that repeats a key: n of them, in inline until they outgrow
	// it, then in spill.
	n      int
	inline [16]member
	spill  []member
}

// push records a member of the object being read.
func (p *parser) push(m member) {
	if p.spill == nil && p.n < len(p.inline) {
		p.inline[p.n] = m
		p.n++
		return
	}
	if p.spill == nil {
		p.spill = append(make([]member, 0, 4*len(p.inline)), p.inline[:p.n]...)
	}
	p.spill = append(p.spill[:p.n], m)
	p.n++
}

// recorded returns the members recorded since base.
func (p *parser) recorded(base int) []member {
	if p.spill != nil {
		return p.spill[base:p.n]
	}
	return p.inline[base:p.n]
}

// member is one member of an object: its key's hash and its part of the
// object's sum.
type member struct {
	key, part uint64
}

func (p *parser) skipSpace() { p.i = jsonlex.Space(p.s, p.i) }

func (p *parser) value(depth int) (uint64, bool) {
	if depth > MaxDepth || p.i >= len(p.s) {
		return 0, false
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.array(depth)
	case c == '"':
		var d xxhash.Digest
		d.Reset()
		_, _ = d.Write([]byte{tagString})
		if !p.str(&d) {
			return 0, false
		}
		return d.Sum64(), true
	case c == 't':
		return p.keyword(tagTrue)
	case c == 'f':
		return p.keyword(tagFalse)
	case c == 'n':
		return p.keyword(tagNull)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return 0, false
}

func (p *parser) keyword(tag byte) (uint64, bool) {
	end, f := jsonlex.Keyword(p.s, p.i)
	p.i = end
	return tagHash(tag), f == jsonlex.OK
}

// object hashes an object as the sum of its members' hashes, so member
// order does not matter. A key that repeats counts once, with its last
// value, as JSON decoders read it: {"a":1,"a":2} hashes like {"a":2}.
func (p *parser) object(depth int) (uint64, bool) {
	p.i++ // {
	var sum uint64
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return hashObject(sum), true
	}
	base := p.n
	var seen uint64 // a bit per key hash modulo 64: a repeat is possible when one is set twice
	repeats := false
	for {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return 0, false
		}
		var d xxhash.Digest
		d.Reset()
		if !p.str(&d) {
			return 0, false
		}
		key := d.Sum64()
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return 0, false
		}
		p.i++
		p.skipSpace()
		val, ok := p.value(depth + 1)
		if !ok {
			return 0, false
		}
		if depth > 0 || !slices.Contains(p.ignore, key) {
			part := Combine(key, val)
			sum += part
			bit := uint64(1) << (key & 63)
			repeats = repeats || seen&bit != 0
			seen |= bit
			p.push(member{key, part})
		}
		p.skipSpace()
		if p.i >= len(p.s) {
			return 0, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			if repeats {
				sum = lastOfEach(p.recorded(base))
			}
			p.n = base
			return hashObject(sum), true
		default:
			return 0, false
		}
	}
}

// lastOfEach returns the sum of the parts of ms, in the order read,
// counting each key once, with its last part. It reorders ms.
func lastOfEach(ms []member) uint64 {
	// Sort by key, keeping the order read among equal keys.
	slices.SortStableFunc(ms, func(a, b member) int { return cmp.Compare(a.key, b.key) })
	var sum uint64
	for i, m := range ms {
		if i+1 == len(ms) || ms[i+1].key != m.key {
			sum += m.part
		}
	}
	return sum
}

func hashObject(sum uint64) uint64 { return Combine(tagObject, sum) }

func (p *parser) array(depth int) (uint64, bool) {
	p.i++ // [
	var buf [9]byte
	var d xxhash.Digest
	d.Reset()
	_, _ = d.Write([]byte{tagArray})
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return d.Sum64(), true
	}
	for {
		p.skipSpace()
		val, ok := p.value(depth + 1)
		if !ok {
			return 0, false
		}
		_, _ = d.Write(binary.LittleEndian.AppendUint64(buf[:0], val))
		p.skipSpace()
		if p.i >= len(p.s) {
			return 0, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return d.Sum64(), true
		default:
			return 0, false
		}
	}
}

// str consumes a JSON string and writes its value to d. Strings with
// escapes are decoded into a buffer on the stack, which only a string of
// escapes longer than the buffer outgrows.
func (p *parser) str(d *xxhash.Digest) bool {
	end, plain, f := jsonlex.String(p.s, p.i)
	if f != jsonlex.OK {
		return false
	}
	body := p.s[p.i+1 : end-1]
	p.i = end
	if plain {
		_, _ = d.WriteString(body)
		return true
	}
	var buf [256]byte
	_, _ = d.Write(jsonlex.Unescape(buf[:0], body))
	return true
}

// number consumes a JSON number and hashes its value: integral values that
// a float64 holds exactly hash as integers, others by their float64 bits.
func (p *parser) number() (uint64, bool) {
	end, f := jsonlex.Number(p.s, p.i)
	if f != jsonlex.OK {
		return 0, false
	}
	text := p.s[p.i:end]
	p.i = end
	v, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return hashNumber(v), true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

func hashNumber(f float64) uint64 {
	var buf [9]byte
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		buf[0] = tagInt
		binary.LittleEndian.PutUint64(buf[1:], uint64(int64(f)))
	} else {
		buf[0] = tagFloat
		binary.LittleEndian.PutUint64(buf[1:], math.Float64bits(f))
	}
	return xxhash.Sum64(buf[:])
}

func tagHash(tag byte) uint64 { return xxhash.Sum64([]byte{tag}) }

func rawHash(s string) uint64 {
	var d xxhash.Digest
	d.Reset()
	_, _ = d.Write([]byte{tagRaw})
	_, _ = d.WriteString(s)
	return d.Sum64()
}

func trimSpace(s string) string {
	s = s[jsonlex.Space(s, 0):]
	for len(s) > 0 {
		switch s[len(s)-1] {
		case ' ', '\t', '\n', '\r':
			s = s[:len(s)-1]
			continue
		}
		break
	}
	return s
}
