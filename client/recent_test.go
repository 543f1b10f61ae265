package client

import (
	"fmt"
	"testing"
)

func TestRecent(t *testing.T) {
	var r recent
	if r.add("") || r.add("") {
		t.Error("the empty id counted as a duplicate")
	}
	if r.add("a") || !r.add("a") {
		t.Error("a repeated id was not recognised")
	}
	for i := range recentSize {
		r.add(fmt.Sprint(i))
	}
	if r.add("a") {
		t.Error("an id older than the window is still remembered")
	}
	if !r.add(fmt.Sprint(recentSize - 1)) {
		t.Error("the newest id was forgotten")
	}
	if len(r.set) != recentSize {
		t.Errorf("remembers %d ids, want %d", len(r.set), recentSize)
	}
}
