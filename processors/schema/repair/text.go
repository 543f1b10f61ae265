package repair

import (
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// parseRepairing parses text as JSON, stripping a surrounding markdown code
// fence and dropping trailing commas if it does not parse as it is. It
// returns the value, the text repairs it made, and, when even the repaired
// text is not JSON, why.
func parseRepairing(text string) (any, []event.Diag, error) {
	v, err := parse(text)
	if err == nil {
		return v, nil, nil
	}
	var fixes []event.Diag
	if inner, ok := stripFence(text); ok {
		fixes = append(fixes, event.Diag{Want: "JSON", Got: "markdown code fence", Msg: "removed the markdown code fence around the JSON"})
		text = inner
		if v, err = parse(text); err == nil {
			return v, fixes, nil
		}
	}
	if fixed, n := dropTrailingCommas(text); n > 0 {
		msg := "removed a trailing comma"
		if n > 1 {
			msg = "removed " + strconv.Itoa(n) + " trailing commas"
		}
		fixes = append(fixes, event.Diag{Want: "JSON", Got: "trailing comma", Msg: msg})
		text = fixed
		if v, err = parse(text); err == nil {
			return v, fixes, nil
		}
	}
	return nil, nil, err
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

// dropTrailingCommas removes every comma that, outside strings and bar
// white space, directly precedes '}' or ']', and says how many it removed.
func dropTrailingCommas(text string) (string, int) {
	var b []byte
	n, last := 0, 0
	inString, escaped := false, false
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && c == ',':
			j := i + 1
			for j < len(text) && (text[j] == ' ' || text[j] == '\t' || text[j] == '\n' || text[j] == '\r') {
				j++
			}
			if j < len(text) && (text[j] == '}' || text[j] == ']') {
				b = append(b, text[last:i]...)
				last = i + 1
				n++
			}
		}
	}
	if n == 0 {
		return text, 0
	}
	b = append(b, text[last:]...)
	return string(b), n
}
