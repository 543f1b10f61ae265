package runner

import (
	"fmt"
	"testing"
)

// TestFairShare: an instance's fair share is ceil(partitions / instances);
// it has room below it and gives up what it holds beyond it, the highest
// partitions first.
func TestFairShare(t *testing.T) {
	for _, tc := range []struct {
		partitions int
		owned      []int
		instances  int
		room       bool
		give       string
	}{
		{partitions: 6, owned: []int{0, 1, 2, 3, 4, 5}, instances: 1, give: "[]"},
		{partitions: 6, owned: []int{0, 1, 2, 3, 4, 5}, instances: 2, give: "[5 4 3]"},
		{partitions: 6, owned: []int{1, 4}, instances: 2, room: true, give: "[]"},
		{partitions: 16, owned: []int{0, 2, 4, 6, 8, 10, 12, 14}, instances: 3, give: "[14 12]"},
		{partitions: 4, owned: nil, instances: 8, room: true, give: "[]"},
		{partitions: 4, owned: []int{3}, instances: 8, give: "[]"},
	} {
		b := newBalance(tc.partitions, NopObserver{})
		for _, p := range tc.owned {
			b.take(p, fmt.Sprint("pin", p))
		}
		give := b.setFair(tc.instances)
		room, _ := b.room()
		if fmt.Sprint(give) != tc.give || room != tc.room {
			t.Errorf("%d partitions, %d instances, owning %v: give %v, room %v; want %s, %v",
				tc.partitions, tc.instances, tc.owned, give, room, tc.give, tc.room)
		}
	}
}
