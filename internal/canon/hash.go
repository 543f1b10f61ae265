package canon

import (
	"encoding/binary"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cespare/xxhash/v2"
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
func Hash(s string) (uint64, bool) {
	p := parser{s: s}
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

// Combine mixes hashes in order into one, for signatures built of parts.
func Combine(hs ...uint64) uint64 {
	var buf [8 * 8]byte
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

type parser struct {
	s string
	i int
}

func (p *parser) skipSpace() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

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
		return p.literal("true", tagTrue)
	case c == 'f':
		return p.literal("false", tagFalse)
	case c == 'n':
		return p.literal("null", tagNull)
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return 0, false
}

func (p *parser) literal(word string, tag byte) (uint64, bool) {
	if len(p.s)-p.i < len(word) || p.s[p.i:p.i+len(word)] != word {
		return 0, false
	}
	p.i += len(word)
	return tagHash(tag), true
}

func (p *parser) object(depth int) (uint64, bool) {
	p.i++ // {
	var sum uint64
	p.skipSpace()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return hashObject(sum), true
	}
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
		sum += Combine(key, val)
		p.skipSpace()
		if p.i >= len(p.s) {
			return 0, false
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return hashObject(sum), true
		default:
			return 0, false
		}
	}
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

// str consumes a JSON string and writes its decoded bytes to d.
func (p *parser) str(d *xxhash.Digest) bool {
	p.i++ // opening quote
	start := p.i
	var buf [utf8.UTFMax]byte
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			_, _ = d.WriteString(p.s[start:p.i])
			p.i++
			return true
		case c < 0x20:
			return false
		case c != '\\':
			p.i++
			continue
		}
		_, _ = d.WriteString(p.s[start:p.i])
		p.i++ // backslash
		if p.i >= len(p.s) {
			return false
		}
		e := p.s[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			_, _ = d.Write([]byte{e})
		case 'b':
			_, _ = d.Write([]byte{'\b'})
		case 'f':
			_, _ = d.Write([]byte{'\f'})
		case 'n':
			_, _ = d.Write([]byte{'\n'})
		case 'r':
			_, _ = d.Write([]byte{'\r'})
		case 't':
			_, _ = d.Write([]byte{'\t'})
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return false
			}
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if p.i+1 < len(p.s) && p.s[p.i] == '\\' && p.s[p.i+1] == 'u' {
					save := p.i
					p.i += 2
					if lo, ok := p.hex4(); ok {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							r2 = dec
						} else {
							p.i = save
						}
					} else {
						return false
					}
				}
				r = r2
			}
			_, _ = d.Write(buf[:utf8.EncodeRune(buf[:], r)])
		default:
			return false
		}
		start = p.i
	}
	return false
}

func (p *parser) hex4() (rune, bool) {
	if len(p.s)-p.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range []byte(p.s[p.i : p.i+4]) {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}

// number consumes a JSON number and hashes its value: integral values that
// a float64 holds exactly hash as integers, others by their float64 bits.
func (p *parser) number() (uint64, bool) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	if !p.digits() {
		return 0, false
	}
	if p.s[start] == '-' && p.s[start+1] == '0' && p.i-start > 2 || p.s[start] == '0' && p.i-start > 1 {
		return 0, false // leading zeros
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if !p.digits() {
			return 0, false
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if !p.digits() {
			return 0, false
		}
	}
	text := p.s[start:p.i]
	f, err := strconv.ParseFloat(text, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	return hashNumber(f), true
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

func (p *parser) digits() bool {
	start := p.i
	for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		p.i++
	}
	return p.i > start
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
	p := parser{s: s}
	p.skipSpace()
	s = s[p.i:]
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
