package antipattern

import (
	"regexp"
	"strings"

	"github.com/cespare/xxhash/v2"
	"github.com/guardstream/guardstream/internal/shell"
	"github.com/guardstream/guardstream/internal/workspace"
)

// What the run's edits did, as their commands say: which substitution
// undoes an earlier one, and what text they wrote or replaced.

// readEdits notes on the pending call p what the in-place edits of a
// shell command do: a substitution that undoes an earlier one of the run
// reverts it (EffectRevert), unless that one was itself an undo; and the
// pieces of string literals the edits change.
func (d *Detector) readEdits(s *State, p *Pending, root workspace.Root, edits []shell.Edit) {
	for _, e := range edits {
		rel, inside := root.Rel(e.Path)
		if !inside || rel == "" {
			continue
		}
		if e.Cmd != 's' {
			p.quote(pieces(literals(e.New), nil))
			continue
		}
		p.quote(pieces(literals(e.New), literals(e.Old)))
		p.quote(pieces(literals(e.Old), literals(e.New)))
		old, ok := patternText(e.Old)
		repl, ok2 := replacementText(e.New)
		if !ok || !ok2 || len(p.Marks) == MaxCallPaths {
			continue
		}
		m := EditMark{Fwd: editHash(rel, e.Addr, old, repl), Inv: editHash(rel, e.Addr, repl, old)}
		if undone, ok := s.undoes(m.Fwd); ok && !undone.Undo {
			m.Undo = true
			p.Effect |= EffectRevert
		}
		p.Marks = append(p.Marks, m)
	}
}

// quote adds pieces of text to those p's edits write or replace.
func (p *Pending) quote(qs []string) {
	for _, q := range qs {
		if len(p.Quoted) == MaxCallPaths {
			return
		}
		if !contains(p.Quoted, q) {
			p.Quoted = append(p.Quoted, q)
		}
	}
}

func editHash(path, addr, from, to string) uint64 {
	h := xxhash.New()
	for _, w := range [...]string{path, addr, from, to} {
		_, _ = h.WriteString(w)
		_, _ = h.Write([]byte{0})
	}
	return h.Sum64()
}

// patternText returns the text a substitution's pattern matches when it is
// read as plain text: without its anchors, and with escaped characters
// unescaped. It is false for a pattern of groups, alternatives or
// back-references, which no text stands for.
func patternText(re string) (string, bool) {
	re = strings.TrimPrefix(re, "^")
	if strings.HasSuffix(re, "$") && !strings.HasSuffix(re, `\$`) {
		re = re[:len(re)-1]
	}
	if strings.Contains(re, `\(`) || strings.Contains(re, `\|`) {
		return "", false
	}
	return unescape(re)
}

// replacementText returns a substitution's replacement as plain text, or
// false when it refers to what matched (&, \1 to \9).
func replacementText(r string) (string, bool) {
	for i := 0; i < len(r); i++ {
		switch {
		case r[i] == '&':
			return "", false
		case r[i] == '\\' && i+1 < len(r) && r[i+1] >= '0' && r[i+1] <= '9':
			return "", false
		case r[i] == '\\':
			i++
		}
	}
	return unescape(r)
}

// unescape drops the backslash before a character that is not a letter or
// a digit; an escaped letter (\n, \t, \w) is kept as written.
func unescape(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && !isAlnum(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String(), true
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// literals returns the string literals of program text: what single or
// double quotes enclose on one line.
func literals(text string) []string {
	var out []string
	for i := 0; i < len(text); i++ {
		q := text[i]
		if q != '\'' && q != '"' {
			continue
		}
		end := -1
		for j := i + 1; j < len(text) && text[j] != '\n'; j++ {
			if text[j] == '\\' {
				j++
			} else if text[j] == q {
				end = j
				break
			}
		}
		if end < 0 {
			continue
		}
		out = append(out, text[i+1:end])
		i = end
	}
	return out
}

// placeholders are the format directives of Python, C and Go strings and
// of str.format, which the text a program prints replaces.
var placeholders = regexp.MustCompile(`%\([^)]*\)[a-z]|%[-#+ 0-9.]*[a-zA-Z]|\{[^{}]*\}`)

// minQuote is the shortest piece of a literal that is remembered: shorter
// ones ("text", "x") turn up in any output.
const minQuote = 6

// pieces returns the pieces, between format directives, of the literals
// in lits that are not among except: those of at least minQuote bytes
// with a letter in them, cut to MaxQuoteLen bytes.
func pieces(lits, except []string) []string {
	var out []string
	for _, l := range lits {
		if contains(except, l) {
			continue
		}
		for _, p := range placeholders.Split(l, -1) {
			p = strings.TrimSpace(p)
			if len(p) < minQuote || !strings.ContainsFunc(p, func(r rune) bool { return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' }) {
				continue
			}
			if len(p) > MaxQuoteLen {
				p = p[:MaxQuoteLen]
			}
			if !contains(out, p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// quotes reports whether a failing test run's report quotes one of the
// pieces: whether a line of its assertions (pytest's "E" and ">" lines,
// an AssertionError, unittest's "-" and "+" lines of a difference) holds
// one.
func quotes(out string, quoted []string) bool {
	if len(quoted) == 0 {
		return false
	}
	for line := range strings.Lines(out) {
		t := strings.TrimSpace(line)
		if !strings.Contains(t, "ssert") && !strings.HasPrefix(t, "E ") && !strings.HasPrefix(t, "- ") && !strings.HasPrefix(t, "+ ") {
			continue
		}
		for _, q := range quoted {
			if strings.Contains(t, q) {
				return true
			}
		}
	}
	return false
}
