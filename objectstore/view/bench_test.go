package view_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// output10MiB returns 10 MiB of grep-like lines under a workspace.
func output10MiB() []byte {
	var b strings.Builder
	for i := 0; b.Len() < 10<<20; i++ {
		fmt.Fprintf(&b, "/home/u/proj/src/pkg%d/file%d.go:%d: func handle%d(ctx context.Context) error {\n", i%97, i%13, i, i)
	}
	return []byte(b.String()[:10<<20])
}

// BenchmarkView measures views of a 10 MiB output; bytes are the full
// output's, so MB/s is how fast an output of that size is bounded.
func BenchmarkView(b *testing.B) {
	full := output10MiB()
	digest := event.Digest(full)
	long := []byte(strings.Repeat("x", 10<<20))
	for _, bc := range []struct {
		name string
		full []byte
		o    view.Options
	}{
		{"first-page", full, view.Options{Workspace: "/home/u/proj"}},
		{"first-page-known-digest", full, view.Options{Workspace: "/home/u/proj", Digest: digest}},
		{"middle-page-known-digest", full, view.Options{Workspace: "/home/u/proj", Digest: digest, Offset: 60000}},
		{"one-long-line-known-digest", long, view.Options{Digest: event.Digest(long)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(bc.full)))
			b.ReportAllocs()
			for b.Loop() {
				view.Of(bc.full, bc.o)
			}
		})
	}
}

// BenchmarkViewSmall measures the common case: a short inline output that
// is shown whole.
func BenchmarkViewSmall(b *testing.B) {
	full := []byte(strings.Repeat("/home/u/proj/src/a.go:12: match\n", 40))
	b.SetBytes(int64(len(full)))
	b.ReportAllocs()
	for b.Loop() {
		view.Of(full, view.Options{Workspace: "/home/u/proj"})
	}
}
