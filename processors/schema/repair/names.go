package repair

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameLen bounds the names Distance and the matching rules look at, so a
// hostile key cannot make them quadratic in its length.
const maxNameLen = 256

// Distance returns the optimal-string-alignment edit distance between a
// and b, ignoring case: the fewest single-character insertions, deletions,
// substitutions and swaps of adjacent characters that turn one into the
// other. Names longer than 256 bytes are at distance 1<<20 from any other.
func Distance(a, b string) int {
	if a == b {
		return 0
	}
	if len(a) > maxNameLen || len(b) > maxNameLen {
		return 1 << 20
	}
	var abuf, bbuf [maxNameLen]rune
	ra, rb := lowerRunes(abuf[:0], a), lowerRunes(bbuf[:0], b)
	if len(ra) == 0 || len(rb) == 0 {
		return len(ra) + len(rb)
	}
	// Three rows of the dynamic-programming table: two back, one back, this.
	var buf [3 * (maxNameLen + 1)]int
	n := len(rb) + 1
	pp, p, cur := buf[:n], buf[n:2*n], buf[2*n:3*n]
	for j := range p {
		p[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			d := min(p[j]+1, cur[j-1]+1, p[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				d = min(d, pp[j-2]+1)
			}
			cur[j] = d
		}
		pp, p, cur = p, cur, pp
	}
	return p[len(rb)]
}

func lowerRunes(dst []rune, s string) []rune {
	for _, r := range s {
		dst = append(dst, unicode.ToLower(r))
	}
	return dst
}

// Words splits a name into its lower-case words: "filePath", "file_path",
// "FilePath" and "file-path" all give [file path]; "fileURL" gives
// [file url].
func Words(name string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	runes := []rune(name)
	for i, r := range runes {
		switch {
		case r == '_' || r == '-' || r == ' ' || r == '.':
			flush()
			continue
		case unicode.IsUpper(r) && i > 0:
			prev := runes[i-1]
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}

// match is how well a key matches a property name.
type match int

const (
	noMatch   match = iota
	closeName       // a whole-word prefix or suffix, or a small edit distance
	sameWords       // the same words in another case convention
)

// maxKeyLen bounds the keys and properties matchKey compares.
const maxKeyLen = 64

// matchKey rates key as a misspelling of prop.
func matchKey(key, prop string) match {
	if len(key) > maxKeyLen || len(prop) > maxKeyLen || key == prop {
		return noMatch
	}
	kw, pw := Words(key), Words(prop)
	if len(kw) == 0 || len(pw) == 0 {
		return noMatch
	}
	if slices.Equal(kw, pw) {
		return sameWords
	}
	if len(pw) < len(kw) && (slices.Equal(kw[:len(pw)], pw) || slices.Equal(kw[len(kw)-len(pw):], pw)) {
		return closeName
	}
	if n := len(key) - len(prop); n > 8 || n < -8 {
		return noMatch // too far apart to be within 2 edits (at most 4 bytes a rune)
	}
	if d := Distance(key, prop); d <= 2 && 3*d <= utf8.RuneCountInString(prop) {
		return closeName
	}
	return noMatch
}
