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
