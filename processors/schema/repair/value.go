package repair

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Values are what parse returns: nil, bool, json.Number, string, []any and
// map[string]any.

// encode returns the canonical JSON text of v: object keys sorted, no
// insignificant white space, numbers as their literal text, strings with
// only the escapes JSON requires.
func encode(v any) string {
	return string(appendJSON(nil, v))
}

func appendJSON(b []byte, v any) []byte {
	switch v := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, v)
	case json.Number:
		return append(b, v...)
	case string:
		return appendString(b, v)
	case []any:
		b = append(b, '[')
		for i, el := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSON(b, el)
		}
		return append(b, ']')
	case map[string]any:
		b = append(b, '{')
		for i, k := range sortedKeys(v) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, k)
			b = append(b, ':')
			b = appendJSON(b, v[k])
		}
		return append(b, '}')
	}
	return append(b, "null"...) // not produced by parse
}

func appendString(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				b = append(b, '\\', c)
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b = append(b, `\ufffd`...)
		} else {
			b = append(b, s[i:i+n]...)
		}
		i += n
	}
	return append(b, '"')
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// pointer renders an instance location as a JSON Pointer: "" for the whole
// value, "/opts/depth" below it.
func pointer(loc []string) string {
	var b strings.Builder
	for _, tok := range loc {
		b.WriteByte('/')
		b.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
	}
	return b.String()
}

// child returns loc extended by tok in a new slice.
func child(loc []string, tok string) []string {
	return append(slices.Clip(loc), tok)
}

// valueAt returns the value at loc in v.
func valueAt(v any, loc []string) (any, bool) {
	for _, tok := range loc {
		switch c := v.(type) {
		case map[string]any:
			el, ok := c[tok]
			if !ok {
				return nil, false
			}
			v = el
		case []any:
			i, ok := atoi(tok)
			if !ok || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// setAt replaces the value at loc in root and returns the new root.
func setAt(root any, loc []string, v any) any {
	if len(loc) == 0 {
		return v
	}
	parent, ok := valueAt(root, loc[:len(loc)-1])
	if !ok {
		return root
	}
	tok := loc[len(loc)-1]
	switch p := parent.(type) {
	case map[string]any:
		p[tok] = v
	case []any:
		if i, ok := atoi(tok); ok && i < len(p) {
			p[i] = v
		}
	}
	return root
}

// atoi parses a non-negative array index.
func atoi(s string) (int, bool) {
	if s == "" || len(s) > 9 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// typeName is the JSON Schema type of v.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		if isIntegerLiteral(string(v)) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return "value"
}

// maxQuoted is how many characters of a string a diagnostic quotes.
const maxQuoted = 40

// describe renders v for the "got" of a diagnostic: `string "ten"`,
// "integer 5", "boolean true", "null", "object", "array of 3".
func describe(v any) string {
	switch v := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean " + strconv.FormatBool(v)
	case json.Number:
		return typeName(v) + " " + clip(string(v))
	case string:
		return "string " + quote(v)
	case []any:
		return "array of " + strconv.Itoa(len(v))
	case map[string]any:
		return "object"
	}
	return "value"
}

// describeJSON renders a schema value (an enum member, a const) compactly.
func describeJSON(v any) string {
	return clip(encode(v))
}

// quote quotes s as JSON, cut to maxQuoted characters.
func quote(s string) string {
	cut := false
	if utf8.RuneCountInString(s) > maxQuoted {
		s = string([]rune(s)[:maxQuoted])
		cut = true
	}
	q := string(appendString(nil, s))
	if cut {
		q += "…"
	}
	return q
}

func clip(s string) string {
	if utf8.RuneCountInString(s) > maxQuoted {
		return string([]rune(s)[:maxQuoted]) + "…"
	}
	return s
}

// isIntegerLiteral reports whether s is a JSON number without fraction or
// exponent: -?(0|[1-9][0-9]*).
func isIntegerLiteral(s string) bool {
	s = strings.TrimPrefix(s, "-")
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isNumberLiteral reports whether s is a JSON number within the bounds
// parse accepts.
func isNumberLiteral(s string) bool {
	if s == "" || s[0] != '-' && (s[0] < '0' || s[0] > '9') {
		return false
	}
	p := parser{s: s}
	_, err := p.number()
	return err == nil && p.i == len(s)
}
