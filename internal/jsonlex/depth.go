package jsonlex

import "strings"

// Deeper reports whether arrays and objects nest more than limit deep in
// the JSON text s. It reads s lexically, as the guards' parsers do, so it
// also answers for text that is not valid JSON: brackets inside string
// literals do not count, and a literal that breaks the string rules ends
// at its fault. It runs in time linear in len(s) and allocates nothing.
func Deeper(s string, limit int) bool {
	if strings.Count(s, "[")+strings.Count(s, "{") <= limit {
		return false // too few openings to nest that deep: the common case
	}
	depth := 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '"':
			end, _, f := String(s, i)
			if f != OK {
				end++ // resume after the offending byte
			}
			i = end
			continue
		case '[', '{':
			if depth++; depth > limit {
				return true
			}
		case ']', '}':
			depth = max(depth-1, 0)
		}
		i++
	}
	return false
}
