package shell

import (
	"path"
	"strings"
)

// Edit is a change an in-place sed command (sed -i) makes to a file, as
// its script says: a substitution, or text that replaces, follows or
// precedes the lines it addresses. Guards read them to tell an edit that
// undoes an earlier one (the same substitution the other way round), and
// what text the work gained or lost.
type Edit struct {
	Path string // the file, resolved as Target.Path is
	// Addr is the script's address as written ("516", "/^def f/",
	// "10,20"), "" for every line.
	Addr string
	// Cmd is the sed command: 's' substitute, 'c' change, 'a' append,
	// 'i' insert, 'r' read a file in (New is its name).
	Cmd byte
	// Old is a substitution's pattern, a regular expression; New its
	// replacement, or the text of c, a and i.
	Old, New string
}

// MaxEdits bounds Analysis.Edits; a command line's edits past it are not
// listed (its Writes still are).
const MaxEdits = 64

// sedEdits adds the edits of the sed script to every file in files.
func (a *analyzer) sedEdits(script string, files []string) {
	edits, _ := parseSed(script)
	for _, c := range edits {
		for _, f := range files {
			if len(a.res.Edits) >= MaxEdits {
				return
			}
			if r, ok := a.resolve(f); ok && r != "" {
				a.res.Edits = append(a.res.Edits, Edit{Path: path.Clean(r), Addr: c.Addr, Cmd: c.Cmd, Old: c.Old, New: c.New})
			}
		}
	}
}

// parseSed returns the s, c, a, i and r commands of a sed script, as far
// as it can read the script: it stops at the first command it does not
// know. adds reports whether it read the whole script and found only
// commands that insert lines (a, i, r).
func parseSed(script string) (out []Edit, adds bool) {
	s := script
	adds = true
	for {
		s = strings.TrimLeft(s, " \t\n;")
		if s == "" {
			return out, adds && len(out) > 0
		}
		addr, rest, ok := sedAddress(s)
		if !ok {
			return out, false
		}
		s = strings.TrimLeft(rest, " \t!")
		if s == "" {
			return out, false
		}
		cmd := s[0]
		s = s[1:]
		adds = adds && strings.IndexByte("airbtT:{}", cmd) >= 0
		switch cmd {
		case 's':
			if s == "" || s[0] == '\\' || s[0] == '\n' {
				return out, false
			}
			d := s[0]
			old, rest, ok := sedUntil(s[1:], d)
			if !ok {
				return out, false
			}
			repl, rest, ok := sedUntil(rest, d)
			if !ok {
				return out, false
			}
			out = append(out, Edit{Addr: addr, Cmd: 's', Old: old, New: repl})
			// Flags run to the end of the command; w takes the rest of
			// the line.
			end := strings.IndexAny(rest, ";\n}")
			if w := strings.IndexByte(rest, 'w'); w >= 0 && (end < 0 || w < end) {
				end = strings.IndexByte(rest, '\n')
			}
			if end < 0 {
				return out, false
			}
			s = rest[end:]
		case 'c', 'a', 'i':
			// GNU's one-liner (c\text or c text) or POSIX's c\ newline
			// text; the text runs to a newline that no backslash escapes.
			s = strings.TrimLeft(s, " \t")
			s = strings.TrimPrefix(s, "\\")
			s = strings.TrimPrefix(s, "\n")
			text, rest := sedText(s)
			out = append(out, Edit{Addr: addr, Cmd: cmd, New: text})
			s = rest
		case 'r':
			// r file: the file's lines after the addressed one; the name
			// runs to the end of the line.
			name, rest, _ := strings.Cut(strings.TrimLeft(s, " \t"), "\n")
			out = append(out, Edit{Addr: addr, Cmd: cmd, New: name})
			s = rest
		case 'b', 't', 'T', ':':
			// A branch, or a label: its name runs to a ";" or the end of
			// the line.
			end := strings.IndexAny(s, ";\n")
			if end < 0 {
				end = len(s)
			}
			s = s[end:]
		case 'd', 'p', 'n', 'N', 'D', 'P', 'g', 'G', 'h', 'H', 'x', '=', 'q', 'Q', 'l', 'z', '{', '}':
		default:
			return out, false
		}
	}
}

// sedAddress reads the address a command starts with: a line number, $,
// a /regex/ or \cregexc, optionally a range or a step.
func sedAddress(s string) (addr, rest string, ok bool) {
	start := s
	one := func() bool {
		switch {
		case s == "":
			return true
		case s[0] >= '0' && s[0] <= '9':
			i := 0
			for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '~') {
				i++
			}
			s = s[i:]
		case s[0] == '$':
			s = s[1:]
		case s[0] == '/' || s[0] == '\\' && len(s) > 1:
			d := s[0]
			if d == '\\' {
				d, s = s[1], s[1:]
			}
			_, rest, ok := sedUntil(s[1:], d)
			if !ok {
				return false
			}
			s = strings.TrimLeft(rest, "IM")
		}
		return true
	}
	if !one() {
		return "", "", false
	}
	if strings.HasPrefix(s, ",") {
		s = s[1:]
		if !one() {
			return "", "", false
		}
	}
	return strings.TrimSpace(start[:len(start)-len(s)]), s, true
}

// sedUntil returns s up to the first d that no backslash escapes, and
// what follows it.
func sedUntil(s string, d byte) (part, rest string, ok bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case d:
			return s[:i], s[i+1:], true
		}
	}
	return "", "", false
}

// sedText returns the text of a, c or i: s up to a newline that no
// backslash escapes, with escaped newlines kept as newlines.
func sedText(s string) (text, rest string) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && s[i+1] == '\n':
			b.WriteByte('\n')
			i++
		case c == '\n':
			return b.String(), s[i:]
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}
