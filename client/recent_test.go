package client

import (
	"fmt"
	"testing"
)

func TestRecent(t *testing.T) {
	var r recent
	r.add("")
	if r.has("") {
		t.Error("the empty id was remembered")
	}
	if r.has("a") {
		t.Error("an id never added is remembered")
	}
	r.add("a")
	r.add("a")
	if !r.has("a") {
		t.Error("an added id was not remembered")
	}
	for i := range recentSize {
		r.add(fmt.Sprint(i))
	}
	if r.has("a") {
		t.Error("an id older than the window is still remembered")
	}
	if !r.has(fmt.Sprint(recentSize - 1)) {
		t.Error("the newest id was forgotten")
	}
	if len(r.set) != recentSize {
		t.Errorf("remembers %d ids, want %d", len(r.set), recentSize)
	}
}
