package runner

import (
	"log/slog"
	"testing"
	"time"
)

// TestInflightFollowsTheServer: batches stored later than the budget halve
// the events a partition keeps in flight, once per budget and down to
// MaxInflight/16; batches stored within a quarter of it let the limit grow
// back by their events, up to MaxInflight; those in between leave it. Each
// change, and only a change, is reported.
func TestInflightFollowsTheServer(t *testing.T) {
	const budget = time.Second
	reported := 1024
	pl := pipeline{max: 1024, limit: 1024, budget: budget, log: slog.New(slog.DiscardHandler)}
	pl.resized = func(limit int) {
		if limit == reported {
			t.Errorf("limit %d reported again", limit)
		}
		reported = limit
	}
	step := func(waited time.Duration, n, want int) {
		t.Helper()
		pl.adapt(waited, n)
		if pl.limit != want || reported != want {
			t.Fatalf("after a batch of %d that waited %v: limit %d (reported %d), want %d", n, waited, pl.limit, reported, want)
		}
	}
	step(2*budget, 10, 512)
	step(2*budget, 10, 512) // the batches queued with it: no second cut yet
	for _, want := range []int{256, 128, 64, 64} {
		pl.cut = pl.cut.Add(-2 * budget) // a budget later
		step(2*budget, 10, want)
	}
	step(budget/2, 100, 64) // neither slow nor fast
	step(budget/8, 100, 164)
	for range 9 {
		pl.adapt(budget/8, 100)
	}
	step(budget/8, 100, 1024)
}
