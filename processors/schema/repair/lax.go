package repair

import (
	"strings"

	"github.com/guardstream/guardstream/internal/jsonlex"
)

// The parser's mends. Each is tried only where reading the text as JSON
// fails, and only if the parser's lax set allows its repair; each counts in
// p.made. Text that is JSON is read exactly as parse reads it.

// mend reports whether repair r is allowed, and counts it if so.
func (p *parser) mend(r Repair) bool {
	if !p.lax.Has(r) {
		return false
	}
	p.made[r]++
	return true
}

// closesEarly handles the place where the next member of an object or
// array should begin (first: right after the opening bracket): a closing
// bracket after a comma (TrailingComma), or the end of the text
// (MissingClosers, and TrailingComma after a comma). It reports whether
// the container is closed.
func (p *parser) closesEarly(closing byte, first bool) bool {
	switch {
	case p.i >= len(p.s) && first:
		return p.mend(MissingClosers)
	case p.i >= len(p.s):
		if !p.lax.Has(TrailingComma) || !p.lax.Has(MissingClosers) {
			return false
		}
		p.mend(TrailingComma)
		return p.mend(MissingClosers)
	case p.s[p.i] == closing && !first && p.mend(TrailingComma):
		p.i++
		return true
	}
	return false
}

// laxValue reads a value JSON does not allow where one should begin: a
// string in single or smart quotes, or a Python literal.
func (p *parser) laxValue() (any, bool) {
	if s, ok := p.quoted(); ok {
		return s, true
	}
	if !p.lax.Has(PythonLiterals) {
		return nil, false
	}
	for _, lit := range []struct {
		word string
		v    any
	}{{"True", true}, {"False", false}, {"None", nil}} {
		if strings.HasPrefix(p.s[p.i:], lit.word) && !isKeyByte(at(p.s, p.i+len(lit.word))) {
			p.i += len(lit.word)
			p.mend(PythonLiterals)
			return lit.v, true
		}
	}
	return nil, false
}

// laxKey reads an object key JSON does not allow: one in single or smart
// quotes, or a bare word of letters, digits, '_', '$' and '-' followed by
// a colon.
func (p *parser) laxKey() (string, bool) {
	if s, ok := p.quoted(); ok {
		return s, true
	}
	if !p.lax.Has(BareKeys) || p.i >= len(p.s) || !isKeyByte(p.s[p.i]) || p.s[p.i] == '-' || isDigit(p.s[p.i]) {
		return "", false
	}
	end := p.i
	for end < len(p.s) && isKeyByte(p.s[end]) {
		end++
	}
	if at(p.s, jsonlex.Space(p.s, end)) != ':' {
		return "", false
	}
	key := p.s[p.i:end]
	p.i = end
	p.mend(BareKeys)
	return key, true
}

func isKeyByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || isDigit(c) || c == '_' || c == '$' || c == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// at returns s[i], or 0 past the end.
func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// Smart quotes, as UTF-8: U+2018 to U+201F share their first two bytes.
const (
	smartPrefix = "\xe2\x80"
	smartFirst  = 0x98 // ‘
	smartLast   = 0x9f // ‟
	smartDouble = 0x9c // “ and after it ” „ ‟ are double; ‘ ’ ‚ ‛ single
)

// smartQuote reports whether s[i:] starts with a smart quote, and whether
// it is a double one.
func smartQuote(s string, i int) (ok, double bool) {
	if !strings.HasPrefix(s[i:], smartPrefix) || i+2 >= len(s) || s[i+2] < smartFirst || s[i+2] > smartLast {
		return false, false
	}
	return true, s[i+2] >= smartDouble
}

// quoted reads a string in single quotes (closed by a single quote) or in
// smart quotes (closed by a smart quote of its kind, double or single, or
// by the ASCII quote of that kind), if Quotes allows it.
func (p *parser) quoted() (string, bool) {
	if !p.lax.Has(Quotes) || p.i >= len(p.s) {
		return "", false
	}
	var closer byte
	open := 1
	switch smart, double := smartQuote(p.s, p.i); {
	case p.s[p.i] == '\'':
		closer = '\''
	case smart && double:
		closer, open = '"', 3
	case smart:
		closer, open = '\'', 3
	default:
		return "", false
	}
	s, ok := p.body(p.i+open, closer, open == 3)
	if ok {
		p.mend(Quotes)
	}
	return s, ok
}

// laxString reads a double-quoted string JSON refused for fault f: one with
// a literal control character, an unknown escape, or no closing quote.
func (p *parser) laxString(f jsonlex.Fault) (string, bool) {
	if f == jsonlex.Syntax || p.lax&SetOf(ControlChars, BadEscapes, TruncatedString) == 0 {
		return "", false
	}
	return p.body(p.i+1, '"', false)
}

// body reads a string's body from start up to its closing quote: closer,
// or, with smart, a smart quote of the same kind. It mends what the lax set
// allows: a literal control character stays in the value (ControlChars),
// a backslash before a character no escape starts with stays a backslash
// (BadEscapes), and text that ends inside the string ends it
// (TruncatedString). In a single-quoted string \' is a quote and a double
// quote is a character. On success it consumes the string.
func (p *parser) body(start int, closer byte, smart bool) (string, bool) {
	var b []byte // the body as JSON would write it, less what Unescape keeps as is
	made := p.made
	for j := start; ; {
		if j >= len(p.s) {
			if !p.mend(TruncatedString) {
				p.made = made
				return "", false
			}
			p.i = j
			return string(jsonlex.Unescape(nil, string(b))), true
		}
		c := p.s[j]
		if isSmart, double := smartQuote(p.s, j); c == closer || smart && isSmart && double == (closer == '"') {
			p.i = j + 1
			if c != closer {
				p.i = j + 3
			}
			return string(jsonlex.Unescape(nil, string(b))), true
		}
		switch {
		case c == '\\' && j+1 >= len(p.s):
			j++ // the text ends after the backslash: only TruncatedString can end the string
		case c == '\\':
			switch e := p.s[j+1]; {
			case strings.IndexByte(`"\/bfnrt`, e) >= 0:
				b = append(b, c, e)
				j += 2
			case e == 'u' && isHex4(p.s, j+2):
				b = append(b, p.s[j:j+6]...)
				j += 6
			case e == '\'' && closer == '\'':
				b = append(b, e)
				j += 2
			case p.mend(BadEscapes):
				b = append(b, '\\', '\\')
				j++
			default:
				p.made = made
				return "", false
			}
		case c < 0x20:
			if !p.mend(ControlChars) {
				p.made = made
				return "", false
			}
			b = append(b, c) // Unescape keeps it
			j++
		default:
			b = append(b, c)
			j++
		}
	}
}

func isHex4(s string, i int) bool {
	if i+4 > len(s) {
		return false
	}
	for _, c := range []byte(s[i : i+4]) {
		if !isDigit(c) && (c|0x20 < 'a' || c|0x20 > 'f') {
			return false
		}
	}
	return true
}
