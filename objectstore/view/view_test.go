package view_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/objectstore/view"
)

// numbered returns n lines "line 1\n", "line 2\n", ...
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// content returns the view's text without its marker.
func content(v view.View) string {
	if i := strings.LastIndex(v.Text, "\n[truncated: "); i >= 0 {
		return v.Text[:i+1]
	}
	return v.Text
}

func TestViewWhole(t *testing.T) {
	tests := []struct {
		name, full, want string
		lines            int64
	}{
		{"empty", "", "", 0},
		{"one line with newline", "a\n", "a\n", 1},
		{"one line without newline", "a", "a", 1},
		{"trailing newline", "a\nb\n", "a\nb\n", 2},
		{"no trailing newline", "a\nb", "a\nb", 2},
		{"a newline alone is an empty line", "\n", "\n", 1},
		{"empty lines count", "\n\n", "\n\n", 2},
		{"CRLF ends one line and is kept", "a\r\nb\r\n", "a\r\nb\r\n", 2},
		{"a lone CR ends no line", "a\rb", "a\rb", 1},
		{"invalid bytes become one U+FFFD per run", "a\xffb\xfe\xfdc\n\xc3\n", "a\uFFFDb\uFFFDc\n\uFFFD\n", 2},
		{"a truncated sequence at the end", "ok \xe2\x82", "ok \uFFFD", 1},
		{"U+FFFD itself is kept", "\uFFFD\n", "\uFFFD\n", 1},
		{"NUL and controls are valid UTF-8", "a\x00b\x1b[0m\n", "a\x00b\x1b[0m\n", 1},
		{"exactly at the line cap", numbered(500), numbered(500), 500},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := view.OfString(tt.full, view.Options{})
			want := event.Truncation{LinesShown: tt.lines, TotalLines: tt.lines, TotalBytes: int64(len(tt.full))}
			if v.Text != tt.want || v.Trunc != want || v.Cut {
				t.Errorf("got %q %+v cut=%t\nwant %q %+v", v.Text, v.Trunc, v.Cut, tt.want, want)
			}
			if !utf8.ValidString(v.Text) {
				t.Errorf("view is not valid UTF-8: %q", v.Text)
			}
		})
	}
}

func TestViewOverLineCap(t *testing.T) {
	full := numbered(20000)
	v := view.OfString(full, view.Options{})
	marker := fmt.Sprintf("[truncated: lines 1-500 of 20000 shown, 19500 more; full output %s (%d bytes); next page at offset 500]",
		event.Digest([]byte(full)), len(full))
	if want := numbered(500) + marker; v.Text != want {
		t.Errorf("text ends %q\nwant it to end %q", tail(v.Text), tail(want))
	}
	want := event.Truncation{LinesShown: 500, LinesRemaining: 19500, HasMore: true, TotalLines: 20000, TotalBytes: int64(len(full))}
	if v.Trunc != want {
		t.Errorf("got %+v, want %+v", v.Trunc, want)
	}

	// The second page, and a page that ends exactly at the last line.
	v = view.OfString(full, view.Options{Offset: 500})
	if !strings.HasPrefix(v.Text, "line 501\n") || !strings.Contains(v.Text, "[truncated: lines 501-1000 of 20000 shown, 19000 more;") {
		t.Errorf("second page: %q ... %q", v.Text[:20], tail(v.Text))
	}
	v = view.OfString(full, view.Options{Offset: 19500})
	if v.Text != strings.Join(strings.SplitAfter(full, "\n")[19500:], "") || v.Trunc.HasMore || v.Trunc.LinesRemaining != 0 {
		t.Errorf("last page: %+v %q", v.Trunc, tail(v.Text))
	}

	// One line over the cap.
	v = view.OfString(numbered(501), view.Options{})
	if !v.Trunc.HasMore || v.Trunc.LinesShown != 500 || v.Trunc.LinesRemaining != 1 || !strings.Contains(v.Text, "1 more;") {
		t.Errorf("501 lines: %+v %q", v.Trunc, tail(v.Text))
	}
}

func TestViewOverByteCap(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	full := strings.Repeat(line, 1000)
	v := view.OfString(full, view.Options{})
	if len(v.Text) > view.DefaultMaxBytes {
		t.Fatalf("view is %d bytes, the cap is %d", len(v.Text), view.DefaultMaxBytes)
	}
	n := v.Trunc.LinesShown
	if n < 300 || n >= 330 || content(v) != strings.Repeat(line, int(n)) {
		t.Errorf("got %d whole lines (%d bytes of text)", n, len(v.Text))
	}
	if !v.Trunc.HasMore || v.Trunc.LinesRemaining != 1000-n || v.Cut {
		t.Errorf("got %+v cut=%t", v.Trunc, v.Cut)
	}
	if want := fmt.Sprintf("next page at offset %d]", n); !strings.HasSuffix(v.Text, want) {
		t.Errorf("marker %q does not end %q", tail(v.Text), want)
	}

	// Everything fits the cap only without a marker: shown whole.
	full = strings.Repeat(line, view.DefaultMaxBytes/len(line))
	if v := view.OfString(full, view.Options{}); v.Text != full || v.Trunc.HasMore {
		t.Errorf("an output just under the cap was truncated: %+v", v.Trunc)
	}
}

func TestViewLongLine(t *testing.T) {
	long := strings.Repeat("é", 1<<19) // 1 MiB of two-byte runes
	for _, tt := range []struct {
		name, full string
		want       event.Truncation
		ends       string
	}{
		{"the only line", long, event.Truncation{LinesShown: 1, TotalLines: 1}, "; last page]"},
		{"then more lines", long + "\ntail\n", event.Truncation{LinesShown: 1, LinesRemaining: 1, HasMore: true, TotalLines: 2}, "; next page at offset 1]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v := view.OfString(tt.full, view.Options{})
			tt.want.TotalBytes = int64(len(tt.full))
			if v.Trunc != tt.want || !v.Cut {
				t.Errorf("got %+v cut=%t, want %+v cut", v.Trunc, v.Cut, tt.want)
			}
			if len(v.Text) > view.DefaultMaxBytes || !utf8.ValidString(v.Text) {
				t.Errorf("view is %d bytes, valid UTF-8: %t", len(v.Text), utf8.ValidString(v.Text))
			}
			shown := strings.TrimSuffix(content(v), "\n")
			if !strings.HasPrefix(long, shown) || len(shown) < view.DefaultMaxBytes-512 {
				t.Errorf("shows %d bytes, not a long prefix of the line", len(shown))
			}
			cut := fmt.Sprintf("; line 1 cut at %d of %d bytes; full output %s (%d bytes)", len(shown), len(long), event.Digest([]byte(tt.full)), len(tt.full))
			if !strings.Contains(v.Text, cut) || !strings.HasSuffix(v.Text, tt.ends) {
				t.Errorf("marker %q\nwant it to contain %q and end %q", tail(v.Text), cut, tt.ends)
			}
		})
	}

	// The walk goes on after the cut line.
	v := view.OfString(long+"\ntail\n", view.Options{Offset: 1})
	if v.Text != "tail\n" || v.Trunc.HasMore || v.Cut {
		t.Errorf("page after the cut line: %q %+v", v.Text, v.Trunc)
	}
	// A long line after short ones ends the page before it, uncut.
	v = view.OfString("a\nb\n"+long, view.Options{})
	if content(v) != "a\nb\n" || v.Trunc.LinesShown != 2 || v.Cut || !strings.HasSuffix(v.Text, "next page at offset 2]") {
		t.Errorf("got %+v cut=%t %q", v.Trunc, v.Cut, tail(v.Text))
	}
}

func TestViewNonUTF8Cut(t *testing.T) {
	// Invalid bytes grow threefold as U+FFFD; alternate them with ASCII so
	// no run merges, and check the cap still holds.
	full := strings.Repeat("a\xff", 40000)
	v := view.OfString(full, view.Options{MaxBytes: 4096})
	if len(v.Text) > 4096 || !utf8.ValidString(v.Text) || !v.Cut {
		t.Fatalf("%d bytes, valid %t, cut %t", len(v.Text), utf8.ValidString(v.Text), v.Cut)
	}
	shown := strings.TrimSuffix(content(v), "\n")
	if strings.Trim(shown, "a\uFFFD") != "" || strings.Contains(shown, "aa") || strings.Contains(shown, "\uFFFD\uFFFD") {
		t.Errorf("shown part is not whole units: %q", tail(shown))
	}
	raw := strings.Count(shown, "a") + strings.Count(shown, "\uFFFD")
	if want := fmt.Sprintf("line 1 cut at %d of %d bytes", raw, len(full)); !strings.Contains(v.Text, want) {
		t.Errorf("marker %q lacks %q", tail(v.Text), want)
	}
}

func TestViewWorkspace(t *testing.T) {
	const ws = "/home/u/proj"
	tests := []struct{ ws, in, want string }{
		{ws, "/home/u/proj/src/a.go:12: undefined: x\n", "src/a.go:12: undefined: x\n"},
		{ws, "cd /home/u/proj && make", "cd . && make"},
		{ws, `open "/home/u/proj": is a directory`, `open ".": is a directory`},
		{ws, "/home/u/proj", "."},
		{ws, "/home/u/proj\r\n", ".\r\n"},
		{ws, "a=/home/u/proj/b,c=/home/u/proj/d", "a=b,c=d"},
		{ws, "/home/u/project/x", "/home/u/project/x"},
		{ws, "/home/u/proj.bak/x", "/home/u/proj.bak/x"},
		{ws, "/x/home/u/proj/a", "/x/home/u/proj/a"},
		{ws, "file:///home/u/proj/a", "file:///home/u/proj/a"},
		{ws, "/home/u/proj//a", ".//a"}, // never an absolute-looking "/a"
		{ws, "ls /home/u/proj/", "ls ./"},
		{ws, "/home/u/proj/ is clean", "./ is clean"},
		{ws, "/home/u/proj/", "./"}, // a line never empties
		{`C:\w`, `C:\w\`, `.\`},
		{ws + "/", "/home/u/proj/src", "src"},
		{"/", "/etc/passwd", "/etc/passwd"},
		{"", "/home/u/proj/a", "/home/u/proj/a"},
		{`C:\w`, `C:\w\src\main.go`, `src\main.go`},
		{ws, "\xff/home/u/proj/a", "\uFFFD/home/u/proj/a"},
	}
	for _, tt := range tests {
		v := view.OfString(tt.in, view.Options{Workspace: tt.ws})
		if v.Text != tt.want {
			t.Errorf("ws %q: %q became %q, want %q", tt.ws, tt.in, v.Text, tt.want)
		}
		if v.Trunc.TotalBytes != int64(len(tt.in)) {
			t.Errorf("ws %q: %q: total_bytes %d, want the original %d", tt.ws, tt.in, v.Trunc.TotalBytes, len(tt.in))
		}
	}

	// The byte cap applies to the rewritten text: rewriting makes room.
	full := strings.Repeat(ws+"/f.go\n", 2000)
	v := view.OfString(full, view.Options{Workspace: ws, MaxBytes: 4096, MaxLines: 1 << 20})
	if v.Trunc.LinesShown < 4096/5-60 || content(v) != strings.Repeat("f.go\n", int(v.Trunc.LinesShown)) {
		t.Errorf("%d lines shown: %q", v.Trunc.LinesShown, tail(v.Text))
	}
}

func TestViewMarkerDeterministic(t *testing.T) {
	full := []byte(numbered(2000) + strings.Repeat("z", 100000))
	var first string
	for range 3 {
		for _, o := range []view.Options{{}, {Offset: 1000}, {Offset: 2000}, {MaxLines: 7, MaxBytes: 600}} {
			v := view.Of(full, o)
			if first == "" {
				first = v.Text
			}
			if again := view.Of(append([]byte(nil), full...), o); again != v {
				t.Fatalf("options %+v: two views differ", o)
			}
			if !strings.Contains(v.Text, event.Digest(full)) {
				t.Errorf("options %+v: marker %q lacks the digest", o, tail(v.Text))
			}
		}
	}

	// A known digest is used as given; a malformed one is ignored.
	known := "sha256:" + strings.Repeat("ab", 32)
	if v := view.Of(full, view.Options{Digest: known}); !strings.Contains(v.Text, known) {
		t.Errorf("known digest not used: %q", tail(v.Text))
	}
	if v := view.Of(full, view.Options{Digest: "md5:xyz"}); v.Text != first {
		t.Errorf("malformed digest changed the view: %q", tail(v.Text))
	}
}

func TestViewPastEnd(t *testing.T) {
	full := numbered(10)
	v := view.OfString(full, view.Options{Offset: 12})
	want := fmt.Sprintf("[no lines at offset 12: the output has 10 lines; full output %s (%d bytes)]", event.Digest([]byte(full)), len(full))
	if v.Text != want || v.Trunc != (event.Truncation{Offset: 12, TotalLines: 10, TotalBytes: int64(len(full))}) {
		t.Errorf("got %q %+v", v.Text, v.Trunc)
	}
	if v := view.OfString(full, view.Options{Offset: -3}); v.Text != full || v.Trunc.Offset != 0 {
		t.Errorf("negative offset: %+v", v.Trunc)
	}
}

func TestViewSmallCaps(t *testing.T) {
	full := strings.Repeat("0123456789", 1000)
	for _, maxBytes := range []int{1, 100, view.MinBytes - 1, view.MinBytes} {
		v := view.OfString(full, view.Options{MaxBytes: maxBytes})
		if len(v.Text) > view.MinBytes || !v.Cut || len(content(v)) < 100 {
			t.Errorf("MaxBytes %d: %d bytes, cut %t, %d bytes of content", maxBytes, len(v.Text), v.Cut, len(content(v)))
		}
	}
}

func tail(s string) string {
	if len(s) > 240 {
		return "…" + s[len(s)-240:]
	}
	return s
}
