package round

import (
	"cmp"
	"strings"
)

// CompareIDs orders call ids naturally: runs of ASCII digits compare by
// their numeric value (so "c2" < "c10" and "9" < "10"), everything else
// byte by byte, and ids that are equal so (such as "c02" and "c2") by
// byte order. It returns -1, 0 or +1, and 0 only for equal ids, so it is a
// total order.
func CompareIDs(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			si, sj := i, j
			for i < len(a) && isDigit(a[i]) {
				i++
			}
			for j < len(b) && isDigit(b[j]) {
				j++
			}
			na, nb := strings.TrimLeft(a[si:i], "0"), strings.TrimLeft(b[sj:j], "0")
			if c := cmp.Compare(len(na), len(nb)); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			continue
		}
		if c := cmp.Compare(a[i], b[j]); c != 0 {
			return c
		}
		i, j = i+1, j+1
	}
	if c := cmp.Compare(len(a)-i, len(b)-j); c != 0 {
		return c // one is a prefix of the other
	}
	return strings.Compare(a, b)
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
