package repair

import (
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// parseRepairing parses text as JSON. If it is not JSON, it strips a
// markdown code fence around it (CodeFence) and reads it with the mends the
// text repairs in allowed permit. It returns the value, a diagnostic for
// each kind of text repair it made, and, when even the mended text is not
// JSON, why the text as sent is not.
func parseRepairing(text string, allowed Set) (any, []event.Diag, error) {
	v, err := parse(text)
	if err == nil || allowed&textRepairs == 0 {
		return v, nil, err
	}
	p := parser{s: text, lax: allowed & textRepairs}
	if inner, ok := stripFence(text); ok && allowed.Has(CodeFence) {
		p.s = inner
		p.made[CodeFence]++
	}
	v, lerr := p.parse()
	if lerr != nil {
		return nil, nil, err
	}
	var fixes []event.Diag
	for r := range numRepairs {
		if n := p.made[r]; n > 0 && textRepairs.Has(r) {
			fixes = append(fixes, textFix(r, n))
		}
	}
	return v, fixes, nil
}

// textFix describes n repairs r of JSON text.
func textFix(r Repair, n int) event.Diag {
	var got, one, many string
	switch r {
	case CodeFence:
		got, one = "markdown code fence", "removed the markdown code fence around the JSON"
	case TrailingComma:
		got, one, many = "trailing comma", "removed a trailing comma", "removed %d trailing commas"
	case ControlChars:
		got, one, many = "control character in a string", "escaped a control character in a string", "escaped %d control characters in strings"
	case BareKeys:
		got, one, many = "unquoted key", "quoted an unquoted key", "quoted %d unquoted keys"
	case Quotes:
		got, one, many = "single or smart quotes", "put a string in single or smart quotes in double quotes", "put %d strings in single or smart quotes in double quotes"
	case PythonLiterals:
		got, one, many = "Python literal", "replaced a Python literal (True, False or None) with JSON's", "replaced %d Python literals (True, False or None) with JSON's"
	case BadEscapes:
		got, one, many = "invalid escape", "kept the backslash of an invalid escape as a character", "kept the backslashes of %d invalid escapes as characters"
	case MissingClosers:
		got, one, many = "missing closing bracket", "added a missing closing bracket", "added %d missing closing brackets"
	case TruncatedString:
		got, one = "string cut off at the end", "closed a string cut off at the end of the text"
	}
	msg := one
	if n > 1 && many != "" {
		msg = strings.Replace(many, "%d", strconv.Itoa(n), 1)
	}
	return event.Diag{Want: "JSON", Got: got, Msg: msg, Repair: r.String()}
}

// stripFence returns what a markdown code fence encloses, when the whole
// text (bar surrounding white space) is one: "```json\n...\n```", or
// "```...```" on one line.
func stripFence(text string) (string, bool) {
	t := strings.TrimSpace(text)
	if len(t) < 6 || !strings.HasPrefix(t, "```") || !strings.HasSuffix(t, "```") {
		return "", false
	}
	t = t[3 : len(t)-3]
	if nl := strings.IndexByte(t, '\n'); nl >= 0 {
		// An info string such as "json" names the language; anything
		// else on the fence's line is the start of the JSON itself.
		if info := strings.TrimSpace(t[:nl]); !strings.ContainsAny(info, "{}[]\",:") {
			t = t[nl+1:]
		}
	}
	if strings.Contains(t, "```") {
		return "", false // several fenced blocks, or fences inside the JSON
	}
	return t, true
}
