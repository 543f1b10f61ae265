package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/guardstream/guardstream/processors"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// kvPrefix is the subject prefix of the guard_runs bucket's keys.
const kvPrefix = "$KV." + streams.RunsBucket + "."

// entry is a cached run.
type entry struct {
	key   string
	run   *processors.Run
	rev   uint64 // guard_runs revision the snapshot was read or written at; 0 if none
	dirty bool   // changed since the last checkpoint
}

// load returns the cached run under key, reading its snapshot from
// guard_runs on a miss.
func (p *partition) load(ctx context.Context, key string) (*entry, error) {
	if e, ok := p.cache[key]; ok {
		return e, nil
	}
	e := &entry{key: key}
	msg, err := p.r.runs.GetLastMsgForSubject(ctx, kvPrefix+key)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		e.run = p.r.chain.NewRun()
	case err != nil:
		return nil, fmt.Errorf("runner: loading run %s: %w", key, err)
	default:
		e.rev = msg.Sequence
		if op := msg.Header.Get("KV-Operation"); op != "" {
			e.run = p.r.chain.NewRun() // deleted or purged
			break
		}
		if e.run, err = p.r.chain.Decode(msg.Data); err != nil {
			// A snapshot this chain cannot read would stop the run's
			// guards for good; start over and say so loudly.
			p.log.Error("unreadable run snapshot; starting the run's state afresh", "run", key, "rev", msg.Sequence, "err", err)
			e.run = p.r.chain.NewRun()
		}
	}
	p.cache[key] = e
	return e, nil
}

// touch marks e as changed since the last checkpoint.
func (p *partition) touch(e *entry) {
	p.sinceCP++
	if !e.dirty {
		e.dirty = true
		p.dirty = append(p.dirty, e)
	}
}
