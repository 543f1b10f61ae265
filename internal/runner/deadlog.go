package runner

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/guardstream/guardstream/streams"
)

// deadLogEvery is how often the dead letters of one reason are logged in
// full: the first in each interval; the rest are counted, and the counts
// logged as the interval ends.
const deadLogEvery = 10 * time.Second

// deadLog logs dead letters without letting a flood of bad events flood
// the log: every dead letter is in GUARD_DLQ, and the metrics count them
// all, so the log needs an example and a count, not a line each. All the
// partitions share it.
type deadLog struct {
	log *slog.Logger

	mu     sync.Mutex
	counts map[streams.DeadReason]int // dead letters this interval, by reason
}

func newDeadLog(log *slog.Logger) *deadLog {
	return &deadLog{log: log, counts: map[streams.DeadReason]int{}}
}

// note logs rec's dead letter, or counts it if one of its reason was
// logged this interval. A panic is always logged in full.
func (d *deadLog) note(rec *record, dl *deadLetter) {
	d.mu.Lock()
	n := d.counts[dl.reason]
	d.counts[dl.reason] = n + 1
	d.mu.Unlock()
	switch {
	case dl.reason == streams.DeadPanic:
		d.log.Error("a guard panicked; its run is stopped and the event dead-lettered", "guard", dl.guard,
			"subject", rec.subject, "seq", rec.seq, "err", dl.cause, "stack", string(dl.stack))
	case n == 0:
		d.log.Warn("dead letter; more of this reason in the next "+deadLogEvery.String()+" are counted, not logged",
			"reason", dl.reason, "subject", rec.subject, "seq", rec.seq, "err", dl.cause)
	}
}

// run logs, every interval until ctx is done, how many dead letters of
// each reason were counted and not logged.
func (d *deadLog) run(ctx context.Context) {
	t := time.NewTicker(deadLogEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			d.flush()
			return
		case <-t.C:
			d.flush()
		}
	}
}

// flush logs the counts of the interval that ends and starts the next.
func (d *deadLog) flush() {
	d.mu.Lock()
	counts := d.counts
	d.counts = map[streams.DeadReason]int{}
	d.mu.Unlock()
	for _, reason := range slices.Sorted(maps.Keys(counts)) {
		if n := counts[reason]; n > 1 && reason != streams.DeadPanic {
			d.log.Warn("dead letters not logged one by one", "reason", reason, "count", n-1, "in", deadLogEvery, "stream", streams.DeadLetterStream)
		}
	}
}
