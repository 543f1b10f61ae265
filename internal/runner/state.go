package runner

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
)

// staleRetries bounds how often a read of run state is tried again when
// the replica that answered was behind: another replica, or the same one
// caught up, answers the next.
const staleRetries = 50

// entry is a cached run.
type entry struct {
	key   string
	run   *processors.Run
	rev   uint64 // guard_runs revision the snapshot was read or written at; 0 if none
	dirty bool   // changed since the last checkpoint began
	// capture is 1 + the entry's index in the checkpoint being written
	// while its snapshot is still to be taken, else 0 (runs.prepare).
	capture int
}

// runs is a tenure's cache of the state of the runs it touched, and the
// list of those changed since the last checkpoint began. It is valid only
// while the tenure lasts: a new owner rebuilds it from guard_runs and
// replay.
//
// Reads of guard_runs go through direct gets, which a replica answers
// that may be behind the leader. Each names the partition's owner key
// too, which the tenure wrote when it began (fence): an answer whose owner
// key is older than that write is stale and asked again; one whose owner
// key is newer means another instance took the partition (errFenced).
// That covers every write before the tenure. Of the tenure's own writes,
// only those of runs it forgot (written) can be read back, and an answer
// from a replica whose stream ends before the latest of them (evicted) is
// stale too: it could hold an ended run's older, active snapshot.
type runs struct {
	store   *reader // the stream behind the guard_runs bucket
	chain   recoverer
	log     *slog.Logger
	cache   map[string]*entry // run state by guard_runs key
	dirty   []*entry          // runs changed since the last checkpoint began
	since   int               // events applied since the last checkpoint began
	fence   fence
	evicted uint64         // the latest revision of a run this tenure wrote, then forgot
	writing *checkpointing // the checkpoint whose snapshots are being taken

	wanted   map[string]bool // scratch of load
	keys     []string
	subjects []string
	got      []record
}

// fence is what an up-to-date read of guard_runs must show: the owner key
// at the revision this tenure wrote it.
type fence struct {
	subject string
	rev     uint64
}

func newRuns(store *reader, chain recoverer, log *slog.Logger) runs {
	return runs{store: store, chain: chain, log: log, cache: map[string]*entry{}, wanted: map[string]bool{}}
}

// cached returns the cached run under key, or nil.
func (rs *runs) cached(key string) *entry { return rs.cache[key] }

// unstarted reports whether e is a run with no state: none stored, and
// nothing applied in this tenure.
func (e *entry) unstarted() bool { return e.rev == 0 && !e.dirty && e.run.Applied == 0 }

// forget drops an unstarted run from the cache.
func (rs *runs) forget(e *entry) { delete(rs.cache, e.key) }

// load makes sure the runs under keys are cached, reading those that are
// not in one request per maxMultiLast of them: a batch of events of runs
// not seen in this tenure costs one round trip, not one per run. A run
// without a snapshot starts afresh.
func (rs *runs) load(ctx context.Context, keys ...string) error {
	clear(rs.wanted)
	rs.keys = rs.keys[:0]
	for _, k := range keys {
		if rs.cache[k] == nil && !rs.wanted[k] {
			rs.wanted[k] = true
			rs.keys = append(rs.keys, k)
		}
	}
	for todo := rs.keys; len(todo) > 0; {
		n := min(len(todo), maxMultiLast-1) // and the owner key
		if err := rs.read(ctx, todo[:n]); err != nil {
			return err
		}
		todo = todo[n:]
	}
	return nil
}

// read reads the snapshots of the runs under keys into the cache.
func (rs *runs) read(ctx context.Context, keys []string) error {
	rs.subjects = rs.subjects[:0]
	for _, k := range keys {
		rs.subjects = append(rs.subjects, streams.RunsSubject(k))
	}
	got, err := rs.fresh(ctx, append(rs.subjects, rs.fence.subject))
	if err != nil {
		return err
	}
	bySubject := make(map[string]*record, len(got))
	for i := range got {
		bySubject[got[i].subject] = &got[i]
	}
	for i, key := range keys {
		e := &entry{key: key}
		switch m := bySubject[rs.subjects[i]]; {
		case m == nil:
			e.run = rs.chain.newRun()
		case m.header.Get("KV-Operation") != "": // deleted or purged
			e.rev, e.run = m.seq, rs.chain.newRun()
		default:
			e.rev = m.seq
			if e.run, err = rs.chain.decode(m.data); err != nil {
				// A snapshot this chain cannot read would stop the run's
				// guards for good; start over and say so loudly.
				rs.log.Error("unreadable run snapshot; starting the run's state afresh", "run", key, "rev", m.seq, "err", err)
				e.run = rs.chain.newRun()
			}
		}
		rs.cache[key] = e
	}
	return nil
}

// fresh reads the last messages of subjects, which name the owner key,
// from a replica that is up to date with this tenure's owner key write.
func (rs *runs) fresh(ctx context.Context, subjects []string) ([]record, error) {
	for try := 0; ; try++ {
		got, upTo, err := rs.store.lastOf(ctx, subjects, rs.got[:0])
		rs.got = got
		if err != nil {
			return nil, err
		}
		var owner uint64
		for i := range got {
			if got[i].subject == rs.fence.subject {
				owner = got[i].seq
			}
		}
		switch {
		case owner == rs.fence.rev && upTo >= rs.evicted:
			return got, nil
		case owner > rs.fence.rev:
			return nil, fmt.Errorf("%w: the partition's owner key is at revision %d, past this tenure's %d", errFenced, owner, rs.fence.rev)
		case try == staleRetries:
			return nil, fmt.Errorf("runner: every replica of %s answering is behind revision %d", rs.store.stream, max(rs.fence.rev, rs.evicted))
		}
		select { // the replica that answered is behind: ask again
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(time.Duration(try+1) * 10 * time.Millisecond):
		}
	}
}

// prepare is called before an event is applied to e: if e is part of the
// checkpoint being written and its snapshot is not taken yet, it is taken
// now, as it was when the checkpoint began.
func (rs *runs) prepare(e *entry) error {
	if e.capture == 0 {
		return nil
	}
	return rs.writing.take(rs, e)
}

// touch marks e as changed since the last checkpoint.
func (rs *runs) touch(e *entry) {
	rs.since++
	rs.mark(e)
}

// mark lists e among the runs the next checkpoint writes.
func (rs *runs) mark(e *entry) {
	if !e.dirty {
		e.dirty = true
		rs.dirty = append(rs.dirty, e)
	}
}

// written records that e's snapshot is stored at revision rev, and
// forgets a run that will not change again.
func (rs *runs) written(e *entry, rev uint64) {
	e.rev = rev
	if !e.dirty && e.capture == 0 && (e.run.Status == processors.StatusEnded || e.run.Status == processors.StatusStopped) {
		delete(rs.cache, e.key)
		rs.evicted = max(rs.evicted, rev)
	}
}
