package view

import (
	"bytes"
	"unsafe"

	"github.com/guardstream/guardstream/event"
)

// Defaults and limits of Options.
const (
	// DefaultMaxLines is the line cap of the reference designs (read_file
	// shows 500 lines).
	DefaultMaxLines = 500
	// DefaultMaxBytes is the byte cap when Options.MaxBytes is 0.
	DefaultMaxBytes = 32 << 10
	// MinBytes is the smallest byte cap: room for the longest marker and
	// some text. A smaller Options.MaxBytes is raised to it.
	MinBytes = 512
)

// Options says which part of an output to show and how.
type Options struct {
	// MaxLines caps the lines of output shown; 0 means DefaultMaxLines.
	MaxLines int
	// MaxBytes caps the bytes of Text, marker included; 0 means
	// DefaultMaxBytes, and a value below MinBytes counts as MinBytes.
	MaxBytes int
	// Offset is the first line shown, counting from 0; a negative Offset
	// counts as 0.
	Offset int64
	// Workspace is the run's absolute workspace root. Paths under it
	// become workspace-relative; empty rewrites nothing.
	Workspace string
	// Digest is the output's digest, as event.Digest returns it, when the
	// caller knows it already (the object store names outputs by it).
	// When it is empty or malformed, Of computes it if the marker needs it.
	Digest string
}

// View is a bounded copy of an output.
type View struct {
	// Text is what the model sees: valid UTF-8 of at most MaxBytes bytes,
	// ending in the truncation marker when it does not reach the end.
	Text string
	// Trunc relates Text to the full output: the pagination metadata of
	// the reference designs.
	Trunc event.Truncation
	// Cut reports that the view's only line was too long for the byte cap
	// and is shown in part.
	Cut bool
}

// Of returns the view of full that o selects. It never modifies full.
func Of(full []byte, o Options) View {
	o = o.normalize()
	total := countLines(full)
	v := View{Trunc: event.Truncation{Offset: o.Offset, TotalLines: total, TotalBytes: int64(len(full))}}
	if o.Offset >= total {
		if o.Offset > 0 {
			v.Text = string(appendPastEnd(nil, o.Offset, total, digestOf(full, o.Digest), len(full)))
		}
		return v
	}
	ws := workspace(o.Workspace)
	start := lineStart(full, o.Offset)
	// Room the marker may need, and the newline before it: the marker
	// holds line numbers no larger than total and byte counts no larger
	// than len(full).
	reduced := o.MaxBytes - markerBound(total, int64(len(full)), digestLen(o.Digest)) - 1

	buf := make([]byte, 0, min(o.MaxBytes, len(full)-start))
	var (
		pos      = start
		n        int64 // lines in buf
		fit      int64 // lines that fit the budget that leaves room for the marker
		fitLen   int   // their bytes
		overflow bool  // a line did not fit MaxBytes
	)
	for n < int64(o.MaxLines) && pos < len(full) {
		line, next := nextLine(full, pos)
		nl := next > pos+len(line)
		limit := o.MaxBytes
		if nl {
			limit--
		}
		before := len(buf)
		var whole bool
		if buf, _, whole = appendLine(buf, line, ws, limit); !whole {
			buf, overflow = buf[:before], true
			break
		}
		if nl {
			buf = append(buf, '\n')
		}
		n, pos = n+1, next
		if len(buf) <= reduced {
			fit, fitLen = n, len(buf)
		}
	}
	if !overflow && pos == len(full) {
		// Every line from Offset to the end fits: no marker.
		v.Text, v.Trunc.LinesShown = unsafe.String(unsafe.SliceData(buf), len(buf)), n // buf is not used again
		return v
	}

	m := marker{total: total, size: int64(len(full))}
	if fit > 0 {
		buf, m.shown = buf[:fitLen], fit
	} else {
		// Not even the first line fits beside the marker: show what fits
		// of it.
		line, next := nextLine(full, start)
		var used int
		var whole bool
		buf, used, whole = appendLine(buf[:0], line, ws, reduced)
		m.shown = 1
		if whole {
			if next > start+len(line) {
				buf = append(buf, '\n') // the room reserved for the marker's newline
			}
		} else {
			v.Cut, m.cut, m.cutAt, m.cutOf = true, true, int64(used), int64(len(line))
		}
	}
	if len(buf) == 0 || buf[len(buf)-1] != '\n' {
		buf = append(buf, '\n')
	}
	m.first, m.remaining, m.digest = o.Offset+1, total-o.Offset-m.shown, digestOf(full, o.Digest)
	buf = m.append(buf)

	v.Text = unsafe.String(unsafe.SliceData(buf), len(buf)) // buf is not used again
	v.Trunc.LinesShown, v.Trunc.LinesRemaining, v.Trunc.HasMore = m.shown, m.remaining, m.remaining > 0
	return v
}

// OfString is Of for an output held in a string, without copying it.
func OfString(full string, o Options) View {
	return Of(unsafe.Slice(unsafe.StringData(full), len(full)), o)
}

func (o Options) normalize() Options {
	if o.MaxLines <= 0 {
		o.MaxLines = DefaultMaxLines
	}
	switch {
	case o.MaxBytes == 0:
		o.MaxBytes = DefaultMaxBytes
	case o.MaxBytes < MinBytes:
		o.MaxBytes = MinBytes
	}
	if o.Offset < 0 {
		o.Offset = 0
	}
	if !validDigest(o.Digest) {
		o.Digest = ""
	}
	return o
}

// countLines returns the number of lines in b.
func countLines(b []byte) int64 {
	n := int64(bytes.Count(b, newline))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

var newline = []byte{'\n'}

// lineStart returns the index where line n of b starts; b has more than n
// lines.
func lineStart(b []byte, n int64) int {
	pos := 0
	for ; n > 0; n-- {
		pos += bytes.IndexByte(b[pos:], '\n') + 1
	}
	return pos
}

// nextLine returns the text of the line starting at pos, without its
// "\n", and the index after it.
func nextLine(b []byte, pos int) (line []byte, next int) {
	i := bytes.IndexByte(b[pos:], '\n')
	if i < 0 {
		return b[pos:], len(b)
	}
	return b[pos : pos+i], pos + i + 1
}

// digestOf returns known if it is set, and the digest of full otherwise.
func digestOf(full []byte, known string) string {
	if known != "" {
		return known
	}
	return event.Digest(full)
}

// digestLen is the length of the digest the marker will carry.
func digestLen(known string) int {
	if known != "" {
		return len(known)
	}
	return len(digestPrefix) + 64
}

const digestPrefix = "sha256:"

// validDigest reports whether d has the form event.Digest returns.
func validDigest(d string) bool {
	if len(d) != len(digestPrefix)+64 || d[:len(digestPrefix)] != digestPrefix {
		return false
	}
	for _, c := range []byte(d[len(digestPrefix):]) {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
