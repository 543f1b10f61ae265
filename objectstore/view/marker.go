package view

import "strconv"

// marker is the truncation marker's content.
type marker struct {
	first, shown     int64 // first line shown (from 1), lines shown
	total, remaining int64 // lines in the output, lines after the view
	cut              bool  // the only line shown is cut
	cutAt, cutOf     int64 // bytes of the cut line shown, and in all
	digest           string
	size             int64 // bytes in the output
}

// append appends the marker's text:
//
//	[truncated: lines F-L of T shown, R more[; line L cut at K of N bytes]; full output D (S bytes); next page at offset O]
//
// with "last page" in place of "next page at offset O" when R is 0.
func (m *marker) append(b []byte) []byte {
	last := m.first + m.shown - 1
	b = append(b, "[truncated: lines "...)
	b = strconv.AppendInt(b, m.first, 10)
	b = append(b, '-')
	b = strconv.AppendInt(b, last, 10)
	b = append(b, " of "...)
	b = strconv.AppendInt(b, m.total, 10)
	b = append(b, " shown, "...)
	b = strconv.AppendInt(b, m.remaining, 10)
	b = append(b, " more"...)
	if m.cut {
		b = append(b, "; line "...)
		b = strconv.AppendInt(b, last, 10)
		b = append(b, " cut at "...)
		b = strconv.AppendInt(b, m.cutAt, 10)
		b = append(b, " of "...)
		b = strconv.AppendInt(b, m.cutOf, 10)
		b = append(b, " bytes"...)
	}
	b = append(b, "; full output "...)
	b = append(b, m.digest...)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, m.size, 10)
	b = append(b, " bytes); "...)
	if m.remaining > 0 {
		b = append(b, "next page at offset "...)
		b = strconv.AppendInt(b, last, 10) // the next Offset, from 0, is the last line shown, from 1
	} else {
		b = append(b, "last page"...)
	}
	return append(b, ']')
}

// markerBound returns the length of the longest marker an output of total
// lines and size bytes can need, with a digest of digestLen bytes: line
// numbers are at most total and byte counts at most size, and the longest
// form has a cut clause and a next page.
func markerBound(total, size int64, digestLen int) int {
	m := marker{first: total, shown: 1, total: total, remaining: total, cut: true, cutAt: size, cutOf: size, size: size}
	var b [320]byte // room for the longest marker without its digest, whatever its counts: nothing to allocate
	return len(m.append(b[:0])) + digestLen
}

// appendPastEnd appends the note of a view whose Offset is at or past the
// end of the output:
//
//	[no lines at offset O: the output has T lines; full output D (S bytes)]
func appendPastEnd(b []byte, offset, total int64, digest string, size int) []byte {
	b = append(b, "[no lines at offset "...)
	b = strconv.AppendInt(b, offset, 10)
	b = append(b, ": the output has "...)
	b = strconv.AppendInt(b, total, 10)
	b = append(b, " lines; full output "...)
	b = append(b, digest...)
	b = append(b, " ("...)
	b = strconv.AppendInt(b, int64(size), 10)
	return append(b, " bytes)]"...)
}
