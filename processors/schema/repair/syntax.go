package repair

import (
	"strings"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/jsonlex"
)

// CheckSyntax checks JSON text that no schema describes, such as the
// arguments of a tool registered without one: the text must be JSON (empty
// text counts as {}). Text that is not is mended as Check mends it, with
// the text repairs o allows, and path parameters lose their markdown links
// (MarkdownLink); no repair that needs a schema is made. Valid JSON without
// such links costs no allocation. A nil o means the default options.
func CheckSyntax(text string, o *Options) Result {
	if o == nil {
		o = &defaultOptions
	}
	if (wellFormed(text) || isBlank(text)) && !mayHoldLink(text, o) {
		return Result{Status: Valid}
	}
	v, fixes, bad := read(text, o)
	switch {
	case bad != nil:
		return *bad
	case len(fixes) == 0:
		return Result{Status: Valid}
	}
	return repaired(v, fixes)
}

// read parses text (empty text as {}) with the text repairs o allows, and
// removes markdown links from its path parameters (MarkdownLink). It
// returns the value and the repairs made, or the result for text that is
// not JSON.
func read(text string, o *Options) (any, []event.Diag, *Result) {
	if isBlank(text) {
		text = "{}"
	}
	v, fixes, err := parseRepairing(text, o.Repairs)
	if err != nil {
		r := invalid([]event.Diag{notJSON(err)})
		return nil, nil, &r
	}
	v, fixes = unlinkPaths(text, v, o, fixes)
	return v, fixes, nil
}

func isBlank(text string) bool { return jsonlex.Space(text, 0) == len(text) }

// wellFormed reports whether text is one JSON value, as parse would read
// it (nesting and numbers within its bounds), without building anything.
func wellFormed(s string) bool {
	var objects [MaxDepth/64 + 1]uint64 // bit d: the container at depth d+1 is an object
	depth := 0
	i := jsonlex.Space(s, 0)
	for {
		// A value begins at i.
		if i >= len(s) {
			return false
		}
		open := false
		switch c := s[i]; {
		case c == '{' || c == '[':
			if depth++; depth > MaxDepth {
				return false
			}
			bit := uint64(1) << ((depth - 1) % 64)
			objects[(depth-1)/64] &^= bit
			if c == '{' {
				objects[(depth-1)/64] |= bit
			}
			i = jsonlex.Space(s, i+1)
			switch {
			case i < len(s) && (c == '{' && s[i] == '}' || c == '[' && s[i] == ']'):
				depth--
				i++
			case c == '{':
				if i = memberName(s, i); i < 0 {
					return false
				}
				open = true
			default:
				open = true
			}
		case c == '"':
			end, _, f := jsonlex.String(s, i)
			if f != jsonlex.OK {
				return false
			}
			i = end
		case c == 't' || c == 'f' || c == 'n':
			end, f := jsonlex.Keyword(s, i)
			if f != jsonlex.OK {
				return false
			}
			i = end
		case c == '-' || isDigit(c):
			end, f := jsonlex.Number(s, i)
			if f != jsonlex.OK || !jsonlex.NumberInRange(s[i:end]) {
				return false
			}
			i = end
		default:
			return false
		}
		if open {
			continue // the container's first member begins at i
		}
		// A value ended at i: close containers until a comma opens the next member.
		for {
			i = jsonlex.Space(s, i)
			if depth == 0 {
				return i == len(s)
			}
			if i >= len(s) {
				return false
			}
			isObject := objects[(depth-1)/64]&(1<<((depth-1)%64)) != 0
			switch s[i] {
			case ',':
				i = jsonlex.Space(s, i+1)
				if isObject {
					if i = memberName(s, i); i < 0 {
						return false
					}
				}
			case '}', ']':
				if (s[i] == '}') != isObject {
					return false
				}
				depth--
				i++
				continue
			default:
				return false
			}
			break
		}
	}
}

// memberName scans an object key and its colon from i and returns where
// the member's value begins, or -1.
func memberName(s string, i int) int {
	if i >= len(s) || s[i] != '"' {
		return -1
	}
	end, _, f := jsonlex.String(s, i)
	if f != jsonlex.OK {
		return -1
	}
	if i = jsonlex.Space(s, end); i >= len(s) || s[i] != ':' {
		return -1
	}
	return jsonlex.Space(s, i+1)
}

// mayHoldLink reports whether text may hold a markdown auto-link that o
// has MarkdownLink remove: only then are its values walked. Any link in
// the value would show in the text as "](http" or "<http", unless written
// with \u escapes.
func mayHoldLink(text string, o *Options) bool {
	return o.Repairs.Has(MarkdownLink) && len(o.PathKeys) > 0 && strings.ContainsAny(text, `]<\`) &&
		(strings.Contains(text, "](http") || strings.Contains(text, "<http") || strings.Contains(text, `\u`))
}
