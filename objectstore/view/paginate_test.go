package view_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// refLines splits full into lines as the package defines them, each with
// its "\n" if it has one, and gives each its expected shown form.
func refLines(full, ws string) []string {
	lines := strings.SplitAfter(full, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		lines[i] = refRewrite(strings.ToValidUTF8(l, "\uFFFD"), ws)
	}
	return lines
}

// refRewrite is a second, plainer implementation of the workspace rule,
// to check the package's against.
func refRewrite(s, ws string) string {
	ws = strings.TrimRight(ws, `/\`)
	if ws == "" || len(ws) == 2 && ws[1] == ':' {
		return s
	}
	name := func(c byte) bool {
		return c >= 0x80 || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("._-+~@%", c) >= 0
	}
	var b strings.Builder
	// boundary reports whether an occurrence may start after byte c of
	// the original line; lineStart holds while nothing of it was consumed.
	boundary := func(c byte) bool { return !name(c) && c != '/' && c != '\\' }
	lineStart, prev := true, byte(0) // prev: the original byte before s
	for {
		i := strings.Index(s, ws)
		if i < 0 {
			return b.String() + s
		}
		j := i + len(ws)
		var atBoundary bool
		switch {
		case i > 0:
			atBoundary = boundary(s[i-1])
		default:
			atBoundary = lineStart || boundary(prev)
		}
		lineStart = false
		switch {
		case atBoundary && j+1 < len(s) && (s[j] == '/' || s[j] == '\\') && name(s[j+1]):
			b.WriteString(s[:i])
			prev, s = s[j], s[j+1:]
		case atBoundary && j < len(s) && (s[j] == '/' || s[j] == '\\'):
			b.WriteString(s[:i] + "." + s[j:j+1])
			prev, s = s[j], s[j+1:]
		case atBoundary && (j == len(s) || !name(s[j])):
			b.WriteString(s[:i] + ".")
			prev, s = s[j-1], s[j:]
		default:
			b.WriteString(s[:i+1])
			prev, s = s[i], s[i+1:]
		}
	}
}

// walk pages through full from offset 0, checks every page against the
// package's promises, and returns the number of pages.
func walk(t testing.TB, full string, o view.Options) int {
	t.Helper()
	maxBytes, maxLines := o.MaxBytes, o.MaxLines
	switch {
	case maxBytes == 0:
		maxBytes = view.DefaultMaxBytes
	case maxBytes < view.MinBytes:
		maxBytes = view.MinBytes
	}
	if maxLines <= 0 {
		maxLines = view.DefaultMaxLines
	}
	want := refLines(full, o.Workspace)
	total := int64(len(want))
	digest := event.Digest([]byte(full))

	o.Offset = 0
	pages := 0
	for {
		pages++
		if pages > len(want)+1 {
			t.Fatalf("the walk did not end after %d pages of a %d-line output", pages, total)
		}
		v := view.OfString(full, o)
		if again := view.Of([]byte(full), o); again != v {
			t.Fatalf("offset %d: two views of the same output differ", o.Offset)
		}
		tr := v.Trunc
		where := fmt.Sprintf("offset %d (%+v, cut %t)", o.Offset, tr, v.Cut)
		if !utf8.ValidString(v.Text) || len(v.Text) > maxBytes {
			t.Fatalf("%s: %d bytes (cap %d), valid UTF-8 %t", where, len(v.Text), maxBytes, utf8.ValidString(v.Text))
		}
		if tr.Offset != o.Offset || tr.TotalLines != total || tr.TotalBytes != int64(len(full)) ||
			tr.Offset+tr.LinesShown+tr.LinesRemaining != total || tr.HasMore != (tr.LinesRemaining > 0) {
			t.Fatalf("%s: inconsistent metadata for a %d-line output", where, total)
		}
		if total == 0 {
			if v.Text != "" || tr.LinesShown != 0 {
				t.Fatalf("%s: an empty output gave %q", where, v.Text)
			}
			return pages
		}
		if tr.LinesShown < 1 || tr.LinesShown > int64(maxLines) || v.Cut && tr.LinesShown != 1 {
			t.Fatalf("%s: %d lines shown, cap %d", where, tr.LinesShown, maxLines)
		}

		text := v.Text
		if tr.HasMore || v.Cut {
			i := strings.LastIndex(text, "\n[truncated: ")
			if i < 0 || !strings.Contains(text[i:], digest) {
				t.Fatalf("%s: no marker with the digest in %q", where, tail(text))
			}
			next := "; last page]"
			if tr.HasMore {
				next = fmt.Sprintf("; next page at offset %d]", tr.Offset+tr.LinesShown)
			}
			if !strings.HasSuffix(text, next) {
				t.Fatalf("%s: marker %q does not end %q", where, tail(text), next)
			}
			text = text[:i+1]
		} else if strings.Contains(text, "[truncated: ") && !strings.Contains(full, "[truncated: ") {
			t.Fatalf("%s: a marker on a page that reaches the end", where)
		}

		shown := strings.SplitAfter(text, "\n")
		if shown[len(shown)-1] == "" {
			shown = shown[:len(shown)-1]
		}
		if int64(len(shown)) != tr.LinesShown {
			t.Fatalf("%s: text holds %d lines", where, len(shown))
		}
		for k, got := range shown {
			exp := want[tr.Offset+int64(k)]
			switch {
			case v.Cut:
				line := strings.TrimSuffix(got, "\n")
				if !strings.HasPrefix(exp, line) || len(line) >= len(strings.TrimSuffix(exp, "\n")) {
					t.Fatalf("%s: cut line %q is not a proper prefix of %q", where, tail(line), tail(exp))
				}
			case got != exp:
				t.Fatalf("%s: line %d is %q, want %q", where, tr.Offset+int64(k), tail(got), tail(exp))
			}
		}
		if !tr.HasMore {
			return pages
		}
		o.Offset += tr.LinesShown
	}
}

func TestPaginate20000Lines(t *testing.T) {
	full := numbered(20000)
	if pages := walk(t, full, view.Options{}); pages != 40 {
		t.Errorf("%d pages, want 40", pages)
	}
	// The same walk collecting the text: nothing lost or repeated.
	var b strings.Builder
	o := view.Options{}
	for {
		v := view.OfString(full, o)
		b.WriteString(content(v))
		if !v.Trunc.HasMore {
			break
		}
		o.Offset += v.Trunc.LinesShown
	}
	if b.String() != full {
		t.Error("the pages put together are not the output")
	}
}

// randomOutput returns an output mixing the cases the package handles:
// empty, long and multi-byte lines, invalid bytes, CRLF, workspace paths.
func randomOutput(r *rand.Rand, ws string) string {
	var b strings.Builder
	n := r.IntN(200)
	for i := range n {
		switch r.IntN(12) {
		case 0:
		case 1:
			b.WriteString(strings.Repeat("x", r.IntN(20000)))
		case 2:
			b.WriteString(strings.Repeat("é✓𝄞", r.IntN(3000)))
		case 3:
			for range r.IntN(40) {
				b.WriteByte(byte(0x80 + r.IntN(0x80)))
				if r.IntN(2) == 0 {
					b.WriteByte('a')
				}
			}
		case 4:
			fmt.Fprintf(&b, "%s/src/f%d.go:%d: %s", ws, r.IntN(100), r.IntN(1000), strings.Repeat("w ", r.IntN(50)))
		case 5:
			fmt.Fprintf(&b, "cd %s && ls %sx", ws, ws)
		default:
			for range r.IntN(30) {
				b.WriteString([]string{"foo ", "bar ", "baz\t", "[truncated: ", "é "}[r.IntN(5)])
			}
		}
		if r.IntN(5) == 0 {
			b.WriteByte('\r')
		}
		if i < n-1 || r.IntN(2) == 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}

func TestPaginateRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 2026))
	n := 250
	if testing.Short() {
		n = 50
	}
	for i := range n {
		ws := []string{"", "/home/u/proj", "/w/"}[r.IntN(3)]
		inOutput := strings.TrimSuffix(ws, "/")
		if ws == "" {
			inOutput = "/home/u/proj" // paths that must stay as they are
		}
		full := randomOutput(r, inOutput)
		o := view.Options{Workspace: ws, MaxLines: r.IntN(60)}
		switch r.IntN(4) {
		case 0:
		case 1:
			o.MaxBytes = 1 + r.IntN(view.MinBytes)
		default:
			o.MaxBytes = view.MinBytes + r.IntN(8000)
		}
		if r.IntN(4) != 0 {
			o.Digest = event.Digest([]byte(full)) // as the store passes it
		}
		t.Run(fmt.Sprint(i), func(t *testing.T) { walk(t, full, o) })
	}
}

func FuzzPaginate(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint8(1), uint16(0), true)
	f.Add([]byte(strings.Repeat("x", 5000)+"\n\xff\xfe/w/a /w\n"), uint8(2), uint16(600), true)
	f.Add([]byte(numbered(30)), uint8(7), uint16(520), false)
	f.Fuzz(func(t *testing.T, data []byte, maxLines uint8, maxBytes uint16, ws bool) {
		o := view.Options{MaxLines: int(maxLines), MaxBytes: int(maxBytes)}
		if ws {
			o.Workspace = "/w"
		}
		walk(t, string(data), o)
	})
}
