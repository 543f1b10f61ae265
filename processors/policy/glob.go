package policy

import (
	"fmt"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// MaxGlobExpansion bounds the patterns one glob's {a,b} alternatives expand
// to.
const MaxGlobExpansion = 64

// globSet matches paths against a list of doublestar globs. Alternatives
// ({a,b}) are expanded when the set is built, so matching never allocates.
type globSet struct {
	pats []string // expanded patterns
	src  []int    // index into globs of each pattern's source
	// globs are the patterns as configured, for messages.
	globs []string
	// prefixes are the literal directories each configured glob starts
	// with, such as ".git/objects" for ".git/objects/**".
	prefixes []string
}

// compileGlobs builds a set from globs, which must be valid.
func compileGlobs(globs []string) (globSet, error) {
	g := globSet{globs: globs}
	for i, glob := range globs {
		exp, err := expandBraces(glob)
		if err != nil {
			return globSet{}, err
		}
		for _, p := range exp {
			if !doublestar.ValidatePattern(p) {
				return globSet{}, fmt.Errorf("%q is not a valid glob", glob)
			}
			g.pats = append(g.pats, p)
			g.src = append(g.src, i)
		}
		g.prefixes = append(g.prefixes, literalPrefix(glob))
	}
	return g, nil
}

// mustGlobs is compileGlobs for globs a valid policy holds.
func mustGlobs(globs []string) globSet {
	g, err := compileGlobs(globs)
	if err != nil {
		// Validate rejects such a policy; match nothing rather than panic.
		return globSet{}
	}
	return g
}

// match returns the configured glob that matches p.
func (g *globSet) match(p string) (string, bool) {
	for i, pat := range g.pats {
		if doublestar.MatchUnvalidated(pat, p) {
			return g.globs[g.src[i]], true
		}
	}
	return "", false
}

// covers returns the configured glob whose literal directory lies inside
// dir, the workspace-relative path of a directory: writing (deleting,
// moving) dir writes what the glob protects.
func (g *globSet) covers(dir string) (string, bool) {
	for i, pre := range g.prefixes {
		if dir == "." || pre != "" && (pre == dir || strings.HasPrefix(pre, dir) && pre[len(dir)] == '/') {
			return g.globs[i], true
		}
	}
	return "", false
}

func (g *globSet) empty() bool { return len(g.pats) == 0 }

// literalPrefix returns the leading directories of glob that hold no
// pattern syntax.
func literalPrefix(glob string) string {
	end := 0
	for i := 0; i <= len(glob); i++ {
		if i == len(glob) || glob[i] == '/' {
			seg := glob[end:i]
			if strings.ContainsAny(seg, `*?[{\`) {
				break
			}
			if i == len(glob) {
				return glob
			}
			end = i + 1
		}
	}
	return strings.TrimSuffix(glob[:end], "/")
}

// expandBraces expands the {a,b} alternatives of glob into plain
// patterns.
func expandBraces(glob string) ([]string, error) {
	open, close := -1, -1
	depth := 0
	for i := 0; i < len(glob) && close < 0; i++ {
		switch glob[i] {
		case '\\':
			i++
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth--; depth == 0 && open >= 0 {
				close = i
			}
		}
	}
	if open < 0 || close < 0 {
		return []string{glob}, nil
	}
	var alts []string
	depth, start := 0, open+1
	for i := open + 1; i <= close; i++ {
		switch glob[i] {
		case '\\':
			i++
		case '{':
			depth++
		case '}':
			if depth == 0 {
				alts = append(alts, glob[start:i])
			}
			depth--
		case ',':
			if depth == 0 {
				alts = append(alts, glob[start:i])
				start = i + 1
			}
		}
	}
	var out []string
	for _, alt := range alts {
		rest, err := expandBraces(glob[:open] + alt + glob[close+1:])
		if err != nil {
			return nil, err
		}
		out = append(out, rest...)
		if len(out) > MaxGlobExpansion {
			return nil, fmt.Errorf("%q expands to more than %d patterns", glob, MaxGlobExpansion)
		}
	}
	return out, nil
}
