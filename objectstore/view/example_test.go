package view_test

import (
	"fmt"
	"strings"

	"github.com/guardstream/guardstream/objectstore/view"
)

// A long tool output, read page by page, as a model would.
func Example() {
	var b strings.Builder
	for i := 1; i <= 7; i++ {
		fmt.Fprintf(&b, "/home/u/proj/src/f%d.go: match\n", i)
	}
	out := b.String()

	o := view.Options{MaxLines: 3, Workspace: "/home/u/proj"}
	for {
		v := view.OfString(out, o)
		fmt.Println(strings.TrimSuffix(v.Text, "\n"))
		fmt.Printf("-- lines_shown=%d lines_remaining=%d has_more=%t\n", v.Trunc.LinesShown, v.Trunc.LinesRemaining, v.Trunc.HasMore)
		if !v.Trunc.HasMore {
			break
		}
		o.Offset += v.Trunc.LinesShown
	}
	// Output:
	// src/f1.go: match
	// src/f2.go: match
	// src/f3.go: match
	// [truncated: lines 1-3 of 7 shown, 4 more; full output sha256:028cb742d9b65f624968142412558ca198827d109848f3eac2577089e1f8c81a (210 bytes); next page at offset 3]
	// -- lines_shown=3 lines_remaining=4 has_more=true
	// src/f4.go: match
	// src/f5.go: match
	// src/f6.go: match
	// [truncated: lines 4-6 of 7 shown, 1 more; full output sha256:028cb742d9b65f624968142412558ca198827d109848f3eac2577089e1f8c81a (210 bytes); next page at offset 6]
	// -- lines_shown=3 lines_remaining=1 has_more=true
	// src/f7.go: match
	// -- lines_shown=1 lines_remaining=0 has_more=false
}
