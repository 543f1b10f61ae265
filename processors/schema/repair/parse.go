package repair

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// MaxDepth is the deepest nesting of arrays and objects parse accepts.
const MaxDepth = 1000

// syntaxError is why text is not JSON, in a form fit for a diagnostic.
// Offsets count as encoding/json's do: the bytes read up to and including
// the offending one.
type syntaxError struct{ msg string }

func (e *syntaxError) Error() string { return e.msg }

// parse decodes JSON text into the values the validator takes: nil, bool,
// json.Number (the literal text, so no digit is lost), string, []any and
// map[string]any, a later duplicate key replacing an earlier one. Invalid
// UTF-8 in strings becomes U+FFFD, byte by byte, as encoding/json does.
// Strings without escapes share the text's memory.
func parse(text string) (any, error) {
	p := parser{s: text}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i < len(p.s) {
		return nil, &syntaxError{fmt.Sprintf("unexpected text after the value at offset %d", p.i+1)}
	}
	return v, nil
}

type parser struct {
	s string
	i int
}

var errEnd = &syntaxError{"unexpected end of input"}

func (p *parser) unexpected(context string) error {
	if p.i >= len(p.s) {
		return errEnd
	}
	return &syntaxError{fmt.Sprintf("invalid character %s %s at offset %d", quoteChar(p.s[p.i:]), context, p.i+1)}
}

// quoteChar renders the character at the start of s as encoding/json does.
func quoteChar(s string) string {
	r, _ := utf8.DecodeRuneInString(s)
	switch r {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	q := strconv.Quote(string(r))
	return "'" + q[1:len(q)-1] + "'"
}

func (p *parser) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (any, error) {
	if p.i >= len(p.s) {
		return nil, errEnd
	}
	switch c := p.s[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case c == 't':
		return true, p.literal("true")
	case c == 'f':
		return false, p.literal("false")
	case c == 'n':
		return nil, p.literal("null")
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return nil, p.unexpected("looking for beginning of value")
}

func (p *parser) literal(word string) error {
	for j := 0; j < len(word); j++ {
		if p.i >= len(p.s) {
			return errEnd
		}
		if p.s[p.i] != word[j] {
			return p.unexpected("in literal " + word + " (expecting " + quoteChar(word[j:]) + ")")
		}
		p.i++
	}
	return nil
}

func (p *parser) object(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &syntaxError{fmt.Sprintf("nested deeper than %d at offset %d", MaxDepth, p.i+1)}
	}
	p.i++ // {
	m := make(map[string]any)
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '}' {
		p.i++
		return m, nil
	}
	for {
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != '"' {
			return nil, p.unexpected("looking for beginning of object key string")
		}
		key, err := p.str()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ':' {
			return nil, p.unexpected("after object key")
		}
		p.i++
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		m[key] = v
		p.space()
		if p.i >= len(p.s) {
			return nil, errEnd
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			return m, nil
		default:
			return nil, p.unexpected("after object key:value pair")
		}
	}
}

func (p *parser) array(depth int) (any, error) {
	if depth > MaxDepth {
		return nil, &syntaxError{fmt.Sprintf("nested deeper than %d at offset %d", MaxDepth, p.i+1)}
	}
	p.i++ // [
	a := []any{}
	p.space()
	if p.i < len(p.s) && p.s[p.i] == ']' {
		p.i++
		return a, nil
	}
	for {
		p.space()
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		p.space()
		if p.i >= len(p.s) {
			return nil, errEnd
		}
		switch p.s[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, nil
		default:
			return nil, p.unexpected("after array element")
		}
	}
}

func (p *parser) number() (any, error) {
	start := p.i
	if p.s[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.s) && p.s[p.i] == '0':
		p.i++
	case p.i < len(p.s) && '1' <= p.s[p.i] && p.s[p.i] <= '9':
		p.digits()
	default:
		return nil, p.unexpected("in numeric literal")
	}
	if p.i < len(p.s) && p.s[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return nil, p.unexpected("after decimal point in numeric literal")
		}
	}
	if p.i < len(p.s) && (p.s[p.i] == 'e' || p.s[p.i] == 'E') {
		p.i++
		if p.i < len(p.s) && (p.s[p.i] == '+' || p.s[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return nil, p.unexpected("in exponent of numeric literal")
		}
	}
	lit := p.s[start:p.i]
	if !numberInRange(lit) {
		return nil, &syntaxError{fmt.Sprintf("number at offset %d is out of range: more than %d characters, or an exponent beyond ±%d", start+1, maxNumberLen, maxExponent)}
	}
	return json.Number(lit), nil
}

// Bounds on number literals. The validator computes with numbers exactly
// (math/big), and 1e999999 would cost it a second: no argument needs more.
const (
	maxNumberLen = 400
	maxExponent  = 400
)

// numberInRange reports whether the JSON number literal s is within the
// bounds above.
func numberInRange(s string) bool {
	if len(s) > maxNumberLen {
		return false
	}
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return true
	}
	exp := 0
	for _, c := range []byte(s[i+1:]) {
		if '0' <= c && c <= '9' {
			exp = exp*10 + int(c-'0')
			if exp > maxExponent {
				return false
			}
		}
	}
	return true
}

func (p *parser) digits() int {
	n := 0
	for p.i < len(p.s) && '0' <= p.s[p.i] && p.s[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// str consumes a string literal and returns its value.
func (p *parser) str() (string, error) {
	p.i++ // opening quote
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return p.s[start : p.i-1], nil
		case c == '\\':
			return p.slowStr(start)
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n == 1 {
				return p.slowStr(start)
			}
			p.i += n
			continue
		}
		p.i++
	}
	return "", errEnd
}

// slowStr finishes a string that has escapes or non-ASCII bytes, from
// start, its first byte; p.i is at the first such byte.
func (p *parser) slowStr(start int) (string, error) {
	b := make([]byte, 0, p.i-start+16)
	b = append(b, p.s[start:p.i]...)
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case c == '"':
			p.i++
			return string(b), nil
		case c < 0x20:
			return "", p.unexpected("in string literal")
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(p.s[p.i:])
			if r == utf8.RuneError && n == 1 {
				b = utf8.AppendRune(b, utf8.RuneError)
			} else {
				b = append(b, p.s[p.i:p.i+n]...)
			}
			p.i += n
			continue
		case c != '\\':
			b = append(b, c)
			p.i++
			continue
		}
		p.i++ // backslash
		if p.i >= len(p.s) {
			return "", errEnd
		}
		e := p.s[p.i]
		switch e {
		case '"', '\\', '/':
			b = append(b, e)
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			p.i++
			r, err := p.hex4()
			if err != nil {
				return "", err
			}
			if utf16.IsSurrogate(r) {
				r = p.lowSurrogate(r)
			}
			b = utf8.AppendRune(b, r)
			continue
		default:
			return "", p.unexpected("in string escape code")
		}
		p.i++
	}
	return "", errEnd
}

// lowSurrogate completes the high surrogate hi with a following \uXXXX low
// surrogate, consuming it; a lone surrogate is U+FFFD, as in encoding/json.
func (p *parser) lowSurrogate(hi rune) rune {
	if len(p.s)-p.i < 6 || p.s[p.i] != '\\' || p.s[p.i+1] != 'u' {
		return utf8.RuneError
	}
	save := p.i
	p.i += 2
	lo, err := p.hex4()
	if err == nil {
		if r := utf16.DecodeRune(hi, lo); r != utf8.RuneError {
			return r
		}
	}
	p.i = save
	return utf8.RuneError
}

func (p *parser) hex4() (rune, error) {
	var r rune
	for range 4 {
		if p.i >= len(p.s) {
			return 0, errEnd
		}
		c := p.s[p.i]
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, p.unexpected("in \\u hexadecimal character escape")
		}
		p.i++
	}
	return r, nil
}
