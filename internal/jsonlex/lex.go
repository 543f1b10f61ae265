package jsonlex

import (
	"math/bits"
	"unicode/utf16"
	"unicode/utf8"
)

// Fault says why a scan failed.
type Fault uint8

// Faults.
const (
	OK          Fault = iota
	End               // the text ended inside the token
	Control           // an unescaped control character in a string
	Escape            // an unknown escape after a backslash
	Hex               // a \u escape without four hex digits
	Syntax            // a character the token's grammar does not allow there
	NumberRange       // a number longer or with a larger exponent than Limits allows
)

// Space returns the index of the first byte at or after i that is not JSON
// whitespace.
func Space(s string, i int) int {
	for i < len(s) {
		switch s[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// String scans the string literal whose opening quote is s[i]. It returns
// the index just past the closing quote and whether the literal's body is
// its value as is: no escapes and valid UTF-8. On a fault, end is the index
// of the offending byte.
func String(s string, i int) (end int, plain bool, f Fault) {
	plain = true
	for j := i + 1; j < len(s); {
		j = ordinary(s, j)
		if j >= len(s) {
			break
		}
		c := s[j]
		switch {
		case c == '"':
			return j + 1, plain, OK
		case c < 0x20:
			return j, false, Control
		case c == '\\':
			plain = false
			if j+1 >= len(s) {
				return len(s), false, End
			}
			switch s[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if _, f := hex4(s, j+2); f != OK {
					return min(j+2, len(s)), false, f
				}
				j += 6
			default:
				return j + 1, false, Escape
			}
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[j:])
			if r == utf8.RuneError && n == 1 {
				plain = false
			}
			j += n
		}
	}
	return len(s), false, End
}

// The masks of a word's bytes that ordinary tests.
const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// ordinary returns the index of the first byte at or after j that a string
// literal's scan must look at: a quote, a backslash, a control character or
// a byte of a multi-byte UTF-8 sequence. It tests eight bytes at a time,
// since most of a literal is none of these.
func ordinary(s string, j int) int {
	for ; j+8 <= len(s); j += 8 {
		w := uint64(s[j]) | uint64(s[j+1])<<8 | uint64(s[j+2])<<16 | uint64(s[j+3])<<24 |
			uint64(s[j+4])<<32 | uint64(s[j+5])<<40 | uint64(s[j+6])<<48 | uint64(s[j+7])<<56
		q, b := w^('"'*lows), w^('\\'*lows)
		// A byte's high bit is set in m where the byte is a quote, a
		// backslash, below 0x20 or from 0x80 up. A borrow can mark a byte
		// after a marked one too, but never one before it, so the lowest
		// mark is exact.
		m := ((q-lows)&^q | (b-lows)&^b | (w-0x20*lows)&^w | w) & highs
		if m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for ; j < len(s); j++ {
		if c := s[j]; c == '"' || c == '\\' || c < 0x20 || c >= utf8.RuneSelf {
			return j
		}
	}
	return j
}

// Unescape appends the value of a string literal's body (the text between
// its quotes, which String accepted) to dst: escapes decoded, a lone
// surrogate and each invalid UTF-8 byte as U+FFFD, as encoding/json does.
func Unescape(dst []byte, body string) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(body[i:])
			if r == utf8.RuneError && n == 1 {
				dst = utf8.AppendRune(dst, utf8.RuneError)
			} else {
				dst = append(dst, body[i:i+n]...)
			}
			i += n
			continue
		case c != '\\':
			dst = append(dst, c)
			i++
			continue
		}
		e := body[i+1]
		i += 2
		switch e {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r, _ := hex4(body, i)
			i += 4
			if utf16.IsSurrogate(r) {
				r2 := utf8.RuneError
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if lo, f := hex4(body, i+2); f == OK {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							r2 = dec
							i += 6
						}
					}
				}
				r = r2
			}
			dst = utf8.AppendRune(dst, r)
		default: // '"', '\\', '/'
			dst = append(dst, e)
		}
	}
	return dst
}

func hex4(s string, at int) (rune, Fault) {
	if at+4 > len(s) {
		return 0, End
	}
	var r rune
	for _, c := range []byte(s[at : at+4]) {
		r <<= 4
		switch {
		case '0' <= c && c <= '9':
			r |= rune(c - '0')
		case 'a' <= c && c <= 'f':
			r |= rune(c - 'a' + 10)
		case 'A' <= c && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, Hex
		}
	}
	return r, OK
}

// Number scans the number literal that starts at s[i] ('-' or a digit).
// It returns the index just past it; on a fault, the index of the offending
// byte.
func Number(s string, i int) (end int, f Fault) {
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i >= len(s):
		return i, End
	case s[i] == '0':
		i++
	case '1' <= s[i] && s[i] <= '9':
		i = digits(s, i)
	default:
		return i, Syntax
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		} else {
			return j, faultAt(s, j)
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if j := digits(s, i); j > i {
			i = j
		} else {
			return j, faultAt(s, j)
		}
	}
	return i, OK
}

func faultAt(s string, j int) Fault {
	if j >= len(s) {
		return End
	}
	return Syntax
}

func digits(s string, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '9' {
		i++
	}
	return i
}

// Keyword scans true, false or null at s[i]. It returns the index just
// past it; on a fault, the index of the first byte that differs.
func Keyword(s string, i int) (end int, f Fault) {
	var word string
	switch s[i] {
	case 't':
		word = "true"
	case 'f':
		word = "false"
	default:
		word = "null"
	}
	for j := 0; j < len(word); j++ {
		switch {
		case i+j >= len(s):
			return i + j, End
		case s[i+j] != word[j]:
			return i + j, Syntax
		}
	}
	return i + len(word), OK
}

// Limits bound number literals: the schema validator computes exactly, and
// a literal like 1e999999 would cost it a second.
const (
	MaxNumberLen = 400
	MaxExponent  = 400
)

// NumberInRange reports whether the number literal n (which Number
// accepted) is at most MaxNumberLen bytes with an exponent within
// ±MaxExponent.
func NumberInRange(n string) bool {
	if len(n) > MaxNumberLen {
		return false
	}
	for i := 0; i < len(n); i++ {
		if n[i] != 'e' && n[i] != 'E' {
			continue
		}
		exp := 0
		for _, c := range []byte(n[i+1:]) {
			if '0' <= c && c <= '9' {
				if exp = exp*10 + int(c-'0'); exp > MaxExponent {
					return false
				}
			}
		}
	}
	return true
}
