package view

import (
	"bytes"
	"strings"
	"unicode/utf8"
)

// appendLine appends the shown form of line (a line's text without its
// "\n") to dst: invalid UTF-8 replaced, workspace paths rewritten. It stops
// before dst would exceed limit bytes, on a boundary between units (a rune,
// a replacement, a rewritten path prefix), and returns the extended dst,
// how many bytes of line it consumed, and whether that was all of them.
func appendLine(dst, line, ws []byte, limit int) ([]byte, int, bool) {
	room := limit - len(dst)
	if room < 0 {
		return dst, 0, false // not even an empty line: dst is past the limit already
	}
	if len(line) <= room && (len(ws) == 0 || !bytes.Contains(line, ws)) && utf8.Valid(line) {
		return append(dst, line...), len(line), true
	}
	for i := 0; i < len(line); {
		// Copy the text up to the next occurrence of the workspace in one
		// go when it is valid and fits; go unit by unit otherwise.
		j := len(line)
		if len(ws) > 0 {
			if k := bytes.Index(line[i:], ws); k >= 0 {
				j = i + k
			}
		}
		if seg, room := line[i:j], limit-len(dst); len(seg) <= room {
			if len(seg) > 0 && utf8.Valid(seg) {
				dst, i = append(dst, seg...), j
				continue
			}
		} else if k := room; k > 0 {
			// Too long: copy what fits, up to a rune start, if it is valid;
			// the units below then stop at the limit.
			for k > 0 && !utf8.RuneStart(seg[k]) {
				k--
			}
			if utf8.Valid(seg[:k]) {
				dst, i = append(dst, seg[:k]...), i+k
			}
		}
		for end := max(j, i+1); i < end; {
			unit, adv := unitAt(line, i, ws)
			if len(dst)+len(unit) > limit {
				return dst, i, false
			}
			dst, i = append(dst, unit...), i+adv
		}
	}
	return dst, len(line), true
}

var (
	replacement  = []byte(string(utf8.RuneError))
	dot          = []byte{'.'}
	dotSlash     = []byte("./")
	dotBackslash = []byte(".\\")
)

// unitAt returns what the bytes of line at i become in the view, and how
// many bytes of line that consumes (at least 1).
func unitAt(line []byte, i int, ws []byte) (unit []byte, adv int) {
	if len(ws) > 0 && line[i] == ws[0] && bytes.HasPrefix(line[i:], ws) && boundaryBefore(line, i) {
		j := i + len(ws)
		switch {
		case j+1 < len(line) && isSep(line[j]) && nameByte(line[j+1]):
			return nil, len(ws) + 1 // "<ws>/src" → "src"
		case j < len(line) && isSep(line[j]):
			if line[j] == '\\' {
				return dotBackslash, len(ws) + 1
			}
			return dotSlash, len(ws) + 1 // "<ws>/" → "./", never ""
		case j == len(line) || !nameByte(line[j]):
			return dot, len(ws) // "<ws>" → "."
		}
	}
	r, size := utf8.DecodeRune(line[i:])
	if r != utf8.RuneError || size > 1 {
		return line[i : i+size], size
	}
	// A maximal run of invalid bytes becomes one U+FFFD.
	j := i + 1
	for j < len(line) {
		if r, size := utf8.DecodeRune(line[j:]); r != utf8.RuneError || size > 1 {
			break
		}
		j++
	}
	return replacement, j - i
}

// boundaryBefore reports whether a path may start at line[i].
func boundaryBefore(line []byte, i int) bool {
	return i == 0 || !nameByte(line[i-1]) && !isSep(line[i-1])
}

func isSep(c byte) bool { return c == '/' || c == '\\' }

// nameByte reports whether c can be part of a file name: ASCII letters and
// digits, "._-+~@%", and any byte of a multi-byte UTF-8 sequence.
func nameByte(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c >= utf8.RuneSelf:
		return true
	}
	return strings.IndexByte("._-+~@%", c) >= 0
}

// workspace returns the root whose paths are rewritten, or nil for none.
func workspace(ws string) []byte {
	w := strings.TrimRight(ws, `/\`)
	if w == "" || len(w) == 2 && w[1] == ':' {
		return nil // empty, or a root ("/", "C:\"): rewriting would mangle every path
	}
	return []byte(w)
}
