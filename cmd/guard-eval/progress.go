package main

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// progress draws a bar on stderr while an input file is read, when stderr
// is a terminal and the file's size is known.
type progress struct {
	w     io.Writer
	name  string
	size  int64
	shown int // percent last drawn, -1 before the first
	on    bool
}

func newProgress(w io.Writer, name string, size int64, quiet bool) *progress {
	p := &progress{w: w, name: name, size: size, shown: -1}
	if f, ok := w.(*os.File); ok && !quiet && size > 0 {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			p.on = true
		}
	}
	return p
}

// update draws the bar for n bytes read, if the percentage moved.
func (p *progress) update(n int64) {
	if !p.on {
		return
	}
	pct := int(min(100, 100*n/p.size))
	if pct == p.shown {
		return
	}
	p.shown = pct
	const width = 30
	fill := pct * width / 100
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d %%", p.name, strings.Repeat("#", fill), strings.Repeat(".", width-fill), pct)
}

// done clears the bar.
func (p *progress) done() {
	if p.on && p.shown >= 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}
