// Package view makes the bounded copy of a tool's output that a model sees:
// at most MaxLines lines and MaxBytes bytes, starting at line Offset, with
// workspace paths made relative, and, when the copy does not reach the end,
// a truncation marker naming the full output's digest so it can be fetched
// from the object store.
//
// The package is pure: no I/O, no clock, no NATS import, no randomness. The
// same output and options give the same bytes, always, so processors can
// call it and stay deterministic.
//
// # Lines
//
// A line is the bytes up to and including a "\n", or the bytes after the
// last "\n" when there are any. So "" has 0 lines, "a" and "a\n" have 1,
// "a\n\nb" has 3. A "\r\n" ends one line, not two: the "\r" stays at the
// end of the line's text and the view keeps it, so the view is a faithful
// slice of the output. A lone "\r" does not end a line.
//
// # Bounds
//
// Text never exceeds MaxBytes bytes, marker included, and never holds more
// than MaxLines lines of output (the marker is one more line). A view that
// shows every line from Offset to the end carries no marker; otherwise
// Text is whole lines, then the marker on a line of its own:
//
//	[truncated: lines 1-500 of 20000 shown, 19500 more; full output sha256:<hex> (1234567 bytes); next page at offset 500]
//
// Line numbers in the marker count from 1 for people; "next page at offset"
// is the Offset (from 0) that continues the walk. When no lines follow, the
// marker ends in "last page" instead.
//
// # Cut lines
//
// A line longer than the byte budget cannot be shown whole. When it is the
// first line of a view, the view shows as much of it as fits (never
// splitting a UTF-8 sequence), counts it as shown, sets Cut, and says so in
// the marker:
//
//	[truncated: lines 7-7 of 9 shown, 2 more; line 7 cut at 31990 of 1048576 bytes; full output sha256:<hex> (1050000 bytes); next page at offset 7]
//
// The byte counts of the cut clause are of the line's original text, without
// its "\n". Offsets always address whole lines of the output, as the tools
// that page by line number (read_file) do: the next page starts at the line
// after the cut one, so a walk always progresses, and the rest of a cut line
// is only in the full output, which the marker names. A line that is not
// the first of its view is never cut: the view stops before it.
//
// # Text hygiene
//
// The view is always valid UTF-8 (msgpack strings must be): each maximal run
// of bytes that is not valid UTF-8 becomes one U+FFFD, as
// strings.ToValidUTF8 does. With a Workspace, an occurrence of
// "<ws>/" (or "<ws>\") that starts at a path boundary and goes on with a
// character of a file name is removed, so the path after it becomes
// workspace-relative; "<ws>/" followed by anything else becomes "./" (so a
// line never empties), and "<ws>" alone, followed by neither a separator
// nor a character of a file name, becomes ".". A path
// boundary is the start of a line or a character that cannot be part of a
// path (space, quote, colon, "=", brackets and so on), so /home/u/proj does
// not match inside /x/home/u/proj or /home/u/project. Trailing separators
// of Workspace are ignored, and a root workspace ("/", "C:\") rewrites
// nothing. Byte counts in Truncation are of the original output; MaxBytes
// applies to the rewritten text.
//
// # Pagination
//
// Calling Of with Offset = previous Offset + LinesShown walks an output from
// any line to its end; every line is shown exactly once (a cut line in
// part), and HasMore is false on the last page. An Offset at or past the end
// gives an empty view (with a short note naming the output's size and
// digest, unless the output is empty and Offset is 0).
package view
