package policy

import (
	"fmt"
	"strings"
)

// MaxGlobExpansion bounds the patterns one glob's {a,b} alternatives expand
// to.
const MaxGlobExpansion = 64

// expandBraces expands the {a,b} alternatives of glob, a valid doublestar
// pattern, into plain patterns, reading them as doublestar does: braces
// inside a character class or escaped are literal, and alternatives are
// split at the top-level commas. It reports whether matching the patterns
// one by one is the same as matching glob. It is not when an alternative
// sits where doublestar has already read what comes before it: after a
// '*' that the alternative would extend (a*{*,b}, **{/,b}), or at the end
// of a path that the rest of the glob matches as empty (a/**{,x} matches
// "a/b" but not "a", where a/** matches both). Such a glob is matched
// whole.
func expandBraces(glob string) (pats []string, exact bool, err error) {
	exact = true
	var expand func(s string, seams []int) error
	expand = func(s string, seams []int) error {
		open := firstBrace(s)
		if open < 0 {
			if len(pats) == MaxGlobExpansion {
				return fmt.Errorf("%q expands to more than %d patterns", glob, MaxGlobExpansion)
			}
			pats = append(pats, s)
			exact = exact && seamless(s, seams)
			return nil
		}
		var ends []int // the ',' and the '}' that end the alternatives
		for start := open + 1; ; {
			n := altEnd(s[start:])
			if n < 0 {
				return fmt.Errorf("%q is not a valid glob", glob)
			}
			ends = append(ends, start+n)
			if s[start+n] == '}' {
				break
			}
			start += n + 1
		}
		close := ends[len(ends)-1]
		seams = append(seams, open)
		start := open + 1
		for _, end := range ends {
			if err := expand(s[:open]+s[start:end]+s[close+1:], seams); err != nil {
				return err
			}
			start = end + 1
		}
		return nil
	}
	if err := expand(glob, nil); err != nil {
		return nil, false, err
	}
	return pats, exact, nil
}

// seamless reports whether doublestar reads pattern p, into which
// alternatives were put at seams, as it reads the glob they came from.
// Before a seam, doublestar has read the text already: a '*' there must not
// be extended by what follows it, and the text from there on must not be
// one of the tails it matches against the empty end of a path (*, **, /**,
// **/, /**/), all of which are at most four '*' and '/'.
func seamless(p string, seams []int) bool {
	for _, s := range seams {
		if s == 0 {
			continue
		}
		if p[s-1] == '*' && (s == len(p) || p[s] == '*' || p[s] == '/') {
			return false
		}
		if tail := p[s-1:]; len(tail) <= 4 && strings.Trim(tail, "*/") == "" {
			return false
		}
	}
	return true
}

// firstBrace returns the index of the first '{' of p that doublestar reads
// as alternatives, or -1.
func firstBrace(p string) int {
	for i := 0; i < len(p); i++ {
		if i += nextSyntax(p[i:]); i < len(p) && p[i] == '{' {
			return i
		}
	}
	return -1
}

// nextSyntax returns the index of the first '{', '}' or ',' of p that is
// neither escaped nor in a character class, or len(p).
func nextSyntax(p string) int {
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			i += classEnd(p[i:])
		case '{', '}', ',':
			return i
		}
	}
	return len(p)
}

// classEnd returns the index in p, which starts with '[', of the ']' that
// ends the class, or len(p).
func classEnd(p string) int {
	for i := 1; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case ']':
			return i
		}
	}
	return len(p)
}

// altEnd returns the index in p, which follows a '{' or a comma between
// alternatives, of the comma or the '}' that ends the alternative, or -1.
func altEnd(p string) int {
	depth := 0
	for i := 0; i < len(p); i++ {
		i += nextSyntax(p[i:])
		switch {
		case i == len(p):
			return -1
		case p[i] == '{':
			depth++
		case depth > 0 && p[i] == '}':
			depth--
		case depth == 0:
			return i
		}
	}
	return -1
}
