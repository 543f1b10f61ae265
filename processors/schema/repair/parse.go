package repair

import (
	"encoding/json"
	"fmt"
	"strconv"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/jsonlex"
)

// MaxDepth is the deepest nesting of arrays and objects parse accepts, and
// that a repair makes: the wire's limit on a call's arguments, which the
// guards' canonical hash shares.
const MaxDepth = event.MaxJSONDepth

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
	return p.parse()
}

func (p *parser) parse() (any, error) {
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

// parser reads JSON text. With lax empty it reads JSON exactly; lax lets it
// mend what the text repairs in it allow, counting each mend in made
// (lax.go).
type parser struct {
	s    string
	i    int
	lax  Set
	made [numRepairs]int
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

func (p *parser) space() { p.i = jsonlex.Space(p.s, p.i) }

// fault turns a lexical fault at p.i into a syntax error; context names
// what was being read, for the Syntax fault.
func (p *parser) fault(f jsonlex.Fault, context string) error {
	switch f {
	case jsonlex.End:
		return errEnd
	case jsonlex.Control:
		return p.unexpected("in string literal")
	case jsonlex.Escape:
		return p.unexpected("in string escape code")
	case jsonlex.Hex:
		return p.unexpected("in \\u hexadecimal character escape")
	}
	return p.unexpected(context)
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
	case c == 't' || c == 'f' || c == 'n':
		end, f := jsonlex.Keyword(p.s, p.i)
		word := p.s[p.i:min(end, len(p.s))]
		if p.i = end; f != jsonlex.OK {
			return nil, p.fault(f, "in literal "+keyword(c)+" (expecting "+quoteChar(keyword(c)[len(word):])+")")
		}
		switch c {
		case 't':
			return true, nil
		case 'f':
			return false, nil
		}
		return nil, nil
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	if v, ok := p.laxValue(); ok {
		return v, nil
	}
	return nil, p.unexpected("looking for beginning of value")
}

// keyword returns the literal that starts with c.
func keyword(c byte) string {
	switch c {
	case 't':
		return "true"
	case 'f':
		return "false"
	}
	return "null"
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
	for first := true; ; first = false {
		p.space()
		if p.closesEarly('}', first) {
			return m, nil
		}
		key, err := p.key()
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
		if closed, err := p.separator('}', "after object key:value pair"); err != nil || closed {
			return m, err
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
	for first := true; ; first = false {
		p.space()
		if p.closesEarly(']', first) {
			return a, nil
		}
		v, err := p.value(depth)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if closed, err := p.separator(']', "after array element"); err != nil || closed {
			return a, err
		}
	}
}

// separator consumes the comma or the closing bracket after a member of an
// object or array, and reports whether it was the closing one.
func (p *parser) separator(closing byte, after string) (bool, error) {
	p.space()
	if p.i >= len(p.s) {
		if p.mend(MissingClosers) {
			return true, nil
		}
		return false, errEnd
	}
	switch p.s[p.i] {
	case ',':
		p.i++
		return false, nil
	case closing:
		p.i++
		return true, nil
	}
	return false, p.unexpected(after)
}

func (p *parser) number() (any, error) {
	start := p.i
	end, f := jsonlex.Number(p.s, p.i)
	if p.i = end; f != jsonlex.OK {
		return nil, p.fault(f, "in numeric literal")
	}
	lit := p.s[start:end]
	if !jsonlex.NumberInRange(lit) {
		return nil, &syntaxError{fmt.Sprintf("number at offset %d is out of range: more than %d characters, or an exponent beyond ±%d", start+1, jsonlex.MaxNumberLen, jsonlex.MaxExponent)}
	}
	return json.Number(lit), nil
}

// key consumes an object key.
func (p *parser) key() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.str()
	}
	if key, ok := p.laxKey(); ok {
		return key, nil
	}
	return "", p.unexpected("looking for beginning of object key string")
}

// str consumes a string literal and returns its value. Strings without
// escapes or invalid UTF-8 share the text's memory.
func (p *parser) str() (string, error) {
	end, plain, f := jsonlex.String(p.s, p.i)
	if f != jsonlex.OK {
		if s, ok := p.laxString(f); ok {
			return s, nil
		}
		p.i = end
		return "", p.fault(f, "in string literal")
	}
	body := p.s[p.i+1 : end-1]
	p.i = end
	if plain {
		return body, nil
	}
	return string(jsonlex.Unescape(make([]byte, 0, len(body)), body)), nil
}
