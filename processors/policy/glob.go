package policy

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// globSet matches paths against a list of doublestar globs, as
// doublestar.Match does, at a cost that does not grow with the list.
//
// Alternatives ({a,b}) are expanded when the set is built (expandBraces),
// so matching never allocates. Each pattern is then filed under one key
// that every path it matches has: the whole path (a literal pattern), the
// last element (**/conftest.py), the leading directories (.git/objects/**),
// the start or end of the last element (**/test_*.py, **/*_test.go), or
// an element anywhere (**/testdata/**). A pattern with none, or whose
// elements do not line up with a path's (a class that can match '/'),
// goes in a short list tried for every path. A path is tried, by
// doublestar itself, only against the patterns filed under its own keys
// and that list, so the answer is doublestar's; the first glob that
// matches, in the order configured, is the one reported. Of each kind of
// key, a path has one per element at most.
type globSet struct {
	globs []string // as configured, for messages
	pats  []string // the patterns globs expand to, in the order of globs
	src   []int32  // index into globs of each pattern's source
	// index files patterns by key, per kind; their lists are ascending.
	index [keyKinds]map[string][]int32
	rest  []int32 // patterns filed under no key
	// heads and tails have bit n-1 set when some key of that kind is n
	// bytes long.
	heads, tails uint8

	// prefixes are the literal directories each configured glob starts
	// with, such as ".git/objects" for ".git/objects/**".
	prefixes []string
	// first maps a directory to the first glob whose prefix is it or lies
	// under it, and at to the first whose prefix is it; named maps it to
	// the globs under it whose last element is literal (see coversNamed),
	// ascending.
	first, at map[string]int32
	named     map[string][]int32
	// literal lists the globs whose last element is literal.
	literal []int32
}

// Kinds of key a pattern is filed under, in the order one is chosen when
// several are equally rare.
const (
	keyWhole = iota // the path itself: a literal pattern
	keyName         // the last element
	keyDirs         // the leading directories
	keyHead         // the last element's first bytes (at most keyLen)
	keyTail         // the last element's last bytes (at most keyLen)
	keyElem         // an element
	keyKinds
)

// keyLen bounds the bytes of a head or tail key.
const keyLen = 8

type globKey struct {
	kind int
	s    string
}

// compileGlobs builds a set from globs, which must be valid.
func compileGlobs(globs []string) (globSet, error) {
	g := globSet{globs: globs, first: map[string]int32{}, at: map[string]int32{}, named: map[string][]int32{}}
	var keys [][]globKey
	count := map[globKey]int{}
	for i, glob := range globs {
		if !doublestar.ValidatePattern(glob) {
			return globSet{}, fmt.Errorf("%q is not a valid glob", glob)
		}
		exp, exact, err := expandBraces(glob)
		if err != nil {
			return globSet{}, err
		}
		if !exact || !utf8.ValidString(glob) {
			// doublestar reads its alternatives. It reads an invalid
			// byte as U+FFFD, and bytes an expansion joins may make a
			// valid rune of ones that were invalid apart.
			exp = []string{glob}
		}
		for _, p := range exp {
			if !doublestar.ValidatePattern(p) {
				return globSet{}, fmt.Errorf("%q is not a valid glob", glob)
			}
			g.pats = append(g.pats, p)
			g.src = append(g.src, int32(i))
			ks := patternKeys(p)
			for _, k := range ks {
				count[k]++
			}
			keys = append(keys, ks)
		}
		g.addPrefix(int32(i), glob)
	}
	for i, ks := range keys {
		if len(ks) == 0 {
			g.rest = append(g.rest, int32(i))
			continue
		}
		best := ks[0]
		for _, k := range ks[1:] {
			if count[k] < count[best] {
				best = k
			}
		}
		if g.index[best.kind] == nil {
			g.index[best.kind] = map[string][]int32{}
		}
		g.index[best.kind][best.s] = append(g.index[best.kind][best.s], int32(i))
		switch best.kind {
		case keyHead:
			g.heads |= 1 << (len(best.s) - 1)
		case keyTail:
			g.tails |= 1 << (len(best.s) - 1)
		}
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

// match returns the first configured glob that matches p.
func (g *globSet) match(p string) (string, bool) {
	best := g.try(g.rest, p, int32(len(g.pats)))
	if m := g.index[keyWhole]; m != nil {
		best = g.try(m[p], p, best)
	}
	last := p[strings.LastIndexByte(p, '/')+1:]
	if m := g.index[keyName]; m != nil {
		best = g.try(m[last], p, best)
	}
	if m := g.index[keyDirs]; m != nil {
		for i := 0; i < len(p); i++ {
			if p[i] == '/' {
				best = g.try(m[p[:i]], p, best)
			}
		}
		best = g.try(m[p], p, best) // a/** matches a
	}
	if m := g.index[keyHead]; m != nil {
		for n := 1; n <= len(last) && n <= keyLen; n++ {
			if g.heads&(1<<(n-1)) != 0 {
				best = g.try(m[last[:n]], p, best)
			}
		}
	}
	if m := g.index[keyTail]; m != nil {
		for n := 1; n <= len(last) && n <= keyLen; n++ {
			if g.tails&(1<<(n-1)) != 0 {
				best = g.try(m[last[len(last)-n:]], p, best)
			}
		}
	}
	if m := g.index[keyElem]; m != nil {
		for rest := p; ; {
			i := strings.IndexByte(rest, '/')
			if i < 0 {
				best = g.try(m[rest], p, best)
				break
			}
			best = g.try(m[rest[:i]], p, best)
			rest = rest[i+1:]
		}
	}
	if best == int32(len(g.pats)) {
		return "", false
	}
	return g.globs[g.src[best]], true
}

// try returns the first pattern of list before best that matches p, or
// best.
func (g *globSet) try(list []int32, p string, best int32) int32 {
	for _, i := range list {
		if i >= best {
			break
		}
		if doublestar.MatchUnvalidated(g.pats[i], p) {
			return i
		}
	}
	return best
}

// patternKeys returns the keys every path that p matches has, or none if
// p's elements may not line up with a path's.
func patternKeys(p string) []globKey {
	segs, ok := segments(p)
	if !ok {
		return nil
	}
	const meta = "*?[]{}\\"
	if !strings.ContainsAny(p, meta) && literalText(p) {
		return []globKey{{keyWhole, p}}
	}
	lit := func(s string) bool { return s != "" && !strings.ContainsAny(s, meta) && literalText(s) }
	var keys []globKey
	lastSeg := segs[len(segs)-1]
	if len(segs) > 1 && lit(lastSeg) {
		keys = append(keys, globKey{keyName, lastSeg})
	}
	dirs := 0 // the leading literal elements, the first of which may be empty (/abs)
	for dirs < len(segs)-1 && (lit(segs[dirs]) || dirs == 0 && segs[0] == "") {
		dirs++
	}
	if dirs > 0 {
		keys = append(keys, globKey{keyDirs, strings.Join(segs[:dirs], "/")})
	}
	if i := strings.IndexAny(lastSeg, meta); i >= 0 {
		if h := lastSeg[:i]; h != "" && literalText(h) {
			keys = append(keys, globKey{keyHead, h[:min(len(h), keyLen)]})
		}
		if t := lastSeg[strings.LastIndexAny(lastSeg, meta)+1:]; t != "" && literalText(t) {
			keys = append(keys, globKey{keyTail, t[max(0, len(t)-keyLen):]})
		}
	}
	for _, s := range segs[dirs : len(segs)-1] {
		if lit(s) {
			keys = append(keys, globKey{keyElem, s})
		}
	}
	return keys
}

// literalText reports whether the bytes of s match only themselves: valid
// UTF-8 without U+FFFD, the rune doublestar decodes any invalid byte as.
func literalText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, utf8.RuneError)
}

// segments splits p at the separators doublestar reads as such, or
// reports that p's elements may not line up with a path's: it holds
// alternatives, an escaped '/', or a class that can match '/' (negated,
// or with a range or an escape in it, or '/' itself).
func segments(p string) ([]string, bool) {
	var segs []string
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			if i+1 < len(p) && p[i+1] == '/' {
				return nil, false
			}
			i++
		case '{', '}':
			return nil, false
		case '[':
			end := classEnd(p[i:])
			if !plainClass(p[i+1 : i+end]) {
				return nil, false
			}
			i += end
		case '/':
			segs = append(segs, p[start:i])
			start = i + 1
		}
	}
	return append(segs, p[start:]), true
}

// plainClass reports whether the class with contents c cannot match '/'.
func plainClass(c string) bool {
	if c == "" || c[0] == '!' || c[0] == '^' || strings.ContainsAny(c, "\\/") {
		return false
	}
	if strings.IndexByte(c, '-') < 0 {
		return true
	}
	lo, hi := utf8.MaxRune, rune(0) // a range lies within the class's runes
	for _, r := range c {
		lo, hi = min(lo, r), max(hi, r)
	}
	return lo > '/' || hi < '/'
}

// addPrefix files glob i by its literal directories, for covers and
// coversNamed.
func (g *globSet) addPrefix(i int32, glob string) {
	pre := literalPrefix(glob)
	g.prefixes = append(g.prefixes, pre)
	if pre == "" {
		return
	}
	last := glob[strings.LastIndexByte(glob, '/')+1:]
	literal := !strings.ContainsAny(last, `*?[{\`)
	if literal {
		g.literal = append(g.literal, i)
	}
	if _, ok := g.at[pre]; !ok {
		g.at[pre] = i
	}
	for j := 0; j <= len(pre); j++ {
		if j < len(pre) && pre[j] != '/' {
			continue
		}
		if _, ok := g.first[pre[:j]]; !ok {
			g.first[pre[:j]] = i
		}
		if j < len(pre) && literal {
			g.named[pre[:j]] = append(g.named[pre[:j]], i)
		}
	}
}

// covers returns the configured glob whose literal directory lies inside
// dir, the workspace-relative path of a directory: writing (deleting,
// moving) dir writes what the glob protects.
func (g *globSet) covers(dir string) (string, bool) {
	if dir == "." && len(g.globs) > 0 {
		return g.globs[0], true
	}
	if i, ok := g.first[dir]; ok {
		return g.globs[i], true
	}
	return "", false
}

// coversNamed is covers for a deletion of only the files named by names
// (a find's -name patterns) under dir: it touches a protected glob that
// dir lies inside, and one under dir whose last element is a literal name
// (such as HEAD) that a pattern matches. A glob whose last element is a
// wildcard protects a directory whatever its files are called, and the
// guard cannot see those names; a name-picked deletion is not taken to
// reach into it.
func (g *globSet) coversNamed(dir string, names []string) (string, bool) {
	best := int32(len(g.globs))
	for j := 0; j <= len(dir); j++ { // dir or a directory it lies in
		if j == len(dir) || dir[j] == '/' {
			if i, ok := g.at[dir[:j]]; ok {
				best = min(best, i)
			}
		}
	}
	under := g.named[dir]
	if dir == "." {
		under = g.literal
	}
	for _, i := range under {
		if i >= best {
			break
		}
		glob := g.globs[i]
		last := glob[strings.LastIndexByte(glob, '/')+1:]
		if g.anyNames(names, last) {
			best = i
			break
		}
	}
	if best == int32(len(g.globs)) {
		return "", false
	}
	return g.globs[best], true
}

func (g *globSet) anyNames(names []string, last string) bool {
	for _, n := range names {
		if ok, _ := doublestar.Match(n, last); ok {
			return true
		}
	}
	return false
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
