package repair

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/event"
)

// unlinkPaths removes markdown auto-links from the path parameters of v
// (MarkdownLink): the string values, and the strings in array values, of
// the members o.PathKeys names, at any depth. It returns v and fixes with a
// diagnostic for each string it changed, in path order. It looks only if
// text may hold a link at all.
func unlinkPaths(text string, v any, o *Options, fixes []event.Diag) (any, []event.Diag) {
	if !mayHoldLink(text, o) {
		return v, fixes
	}
	return v, unlinkIn(v, nil, o.PathKeys, false, fixes)
}

func unlinkIn(v any, loc []string, keys []string, isPath bool, fixes []event.Diag) []event.Diag {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			at := child(loc, k)
			if s, ok := v[k].(string); ok && slices.Contains(keys, k) {
				if u, changed := unlink(s); changed {
					v[k] = u
					fixes = append(fixes, linkFix(at, s, u))
				}
				continue
			}
			fixes = unlinkIn(v[k], at, keys, slices.Contains(keys, k), fixes)
		}
	case []any:
		for i, el := range v {
			at := child(loc, strconv.Itoa(i))
			if s, ok := el.(string); ok && isPath {
				if u, changed := unlink(s); changed {
					v[i] = u
					fixes = append(fixes, linkFix(at, s, u))
				}
				continue
			}
			fixes = unlinkIn(el, at, keys, false, fixes)
		}
	}
	return fixes
}

func linkFix(loc []string, was, now string) event.Diag {
	return event.Diag{
		Path: pointer(loc), Want: "a path", Got: describe(was), Repair: MarkdownLink.String(),
		Msg: fmt.Sprintf("removed the markdown link around %s %s", quote(now), where(loc)),
	}
}

// Bounds of unlink, which keep hostile strings cheap.
const (
	maxLinkName   = 256 // bytes of a link's text or address
	maxLinkPasses = 8   // links within links
)

// unlink replaces each markdown auto-link in s by the text it links: a
// link whose text is its own address less the scheme, "[a.py](http://a.py)"
// (case aside, as chat tools and editors write them when they take a file
// name for a domain), and an angle-bracket link to a bare name,
// "<http://a.py>". It repeats until none is left, so that unlinking again
// changes nothing; a string that still has links after maxLinkPasses
// passes is left as it is.
func unlink(s string) (string, bool) {
	t := s
	for range maxLinkPasses {
		next, changed := unlinkPass(t)
		if !changed {
			return t, t != s
		}
		t = next
	}
	if _, changed := unlinkPass(t); changed {
		return s, false
	}
	return t, true
}

// unlinkPass replaces the links of s, left to right, once.
func unlinkPass(s string) (string, bool) {
	var b strings.Builder
	last := 0 // s[:last] is written or replaced
	for from := 0; from < len(s); {
		i, j := strings.Index(s[from:], "](http"), strings.Index(s[from:], "<http")
		var start, end, pos int
		var name string
		switch {
		case i < 0 && j < 0:
			from = len(s)
			continue
		case i >= 0 && (j < 0 || i < j):
			pos = from + i
			start, name, end = bracketLink(s, last, pos)
		default:
			pos = from + j
			start, name, end = angleLink(s, pos)
		}
		if end < 0 {
			from = pos + 1
			continue
		}
		b.WriteString(s[last:start])
		b.WriteString(name)
		last, from = end, end
	}
	if last == 0 {
		return s, false
	}
	b.WriteString(s[last:])
	return b.String(), true
}

// bracketLink finds "[T](http://T)" whose "](" is at i, its '[' at or
// after lo, and returns where it starts, T, and where it ends; end < 0 if
// there is none.
func bracketLink(s string, lo, i int) (start int, name string, end int) {
	lb := strings.LastIndexByte(s[max(lo, i-maxLinkName-1):i], '[')
	if lb < 0 {
		return 0, "", -1
	}
	lb += max(lo, i-maxLinkName-1)
	name = s[lb+1 : i]
	addr, n, ok := address(s[i+2:], ')')
	if !ok || !linkable(name) || !strings.EqualFold(strings.TrimSuffix(addr, "/"), name) {
		return 0, "", -1
	}
	return lb, name, i + 2 + n
}

// angleLink finds "<http://T>", T a name without a slash, whose '<' is at
// j.
func angleLink(s string, j int) (start int, name string, end int) {
	addr, n, ok := address(s[j+1:], '>')
	if !ok || !linkable(addr) || strings.Contains(addr, "/") {
		return 0, "", -1
	}
	return j, addr, j + 1 + n
}

// address reads "http://X" or "https://X" up to the byte end, and returns
// X and how many bytes it read, end included.
func address(s string, end byte) (addr string, n int, ok bool) {
	for _, scheme := range []string{"http://", "https://"} {
		if after, found := strings.CutPrefix(s, scheme); found {
			k := strings.IndexByte(after[:min(len(after), maxLinkName+1)], end)
			if k < 0 {
				return "", 0, false
			}
			return after[:k], len(scheme) + k + 1, true
		}
	}
	return "", 0, false
}

// linkable reports whether name can be the text of an auto-link: not
// empty, and without white space or the brackets links are made of.
func linkable(name string) bool {
	return name != "" && !strings.ContainsAny(name, " \t\r\n[]()<>")
}
