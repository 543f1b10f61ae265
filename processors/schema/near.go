package schema

import (
	"cmp"
	"slices"
	"unicode/utf8"

	"github.com/guardstream/guardstream/processors/schema/repair"
)

// maxNear is how many registered tools an unknown tool's rejection names.
const maxNear = 3

// nearest returns up to n of names that are close to name, nearest first
// by edit distance, ties broken by name. A name is close when its edit
// distance from name (ignoring case) is at most a third of name's length,
// and at least 1 is always allowed; or when the words of one are a
// whole-word prefix or suffix of the other's (grep and grep_search).
func nearest(name string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cands []cand
	limit := max(1, utf8.RuneCountInString(name)/3)
	words := repair.Words(name)
	for _, other := range names {
		d := repair.Distance(name, other)
		if d <= limit || affix(words, repair.Words(other)) || affix(repair.Words(other), words) {
			cands = append(cands, cand{other, d})
		}
	}
	slices.SortFunc(cands, func(a, b cand) int { return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.name, b.name)) })
	out := make([]string, 0, min(n, len(cands)))
	for i := 0; i < len(cands) && i < n; i++ {
		out = append(out, cands[i].name)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// affix reports whether short is a whole-word prefix or suffix of long.
func affix(short, long []string) bool {
	if len(short) == 0 || len(short) >= len(long) {
		return false
	}
	return slices.Equal(short, long[:len(short)]) || slices.Equal(short, long[len(long)-len(short):])
}
