package view

import (
	"math"
	"testing"
)

func TestMarkerBoundFitsMinBytes(t *testing.T) {
	// The longest marker any output can need leaves room for text.
	if n := markerBound(math.MaxInt64, math.MaxInt64, digestLen("")) + 1; n > MinBytes-128 {
		t.Errorf("the longest marker takes %d bytes; MinBytes (%d) leaves less than 128 for text", n, MinBytes)
	}
}

// TestMarkerBoundDoesNotAllocate: the marker's bound is measured in a
// buffer on the stack, which holds the longest marker of any counts.
func TestMarkerBoundDoesNotAllocate(t *testing.T) {
	const most = math.MaxInt64
	if n := markerBound(most, most, 0); n > 320 {
		t.Fatalf("the longest marker is %d bytes, more than markerBound's buffer", n)
	}
	if a := testing.AllocsPerRun(100, func() { markerBound(123_456, 9_876_543, 71) }); a != 0 {
		t.Errorf("markerBound allocates %v times", a)
	}
}
