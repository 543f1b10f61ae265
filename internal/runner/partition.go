package runner

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// retryPause is how long a partition waits after a failure before it
// pulls again, so that a server that is down is not hammered.
const retryPause = time.Second

// partition is one partition of AGENT_EVENTS as this instance sees it: it
// waits for the server to pin the partition here, owns it for a tenure,
// and waits again. It is run by one goroutine.
type partition struct {
	r       *Runner
	id      int
	log     *slog.Logger
	release chan struct{}      // the balancer asks to hand the partition over
	cons    jetstream.Consumer // nil until looked up, and once it went missing
	events  *reader            // reads AGENT_EVENTS back at recovery
	state   *reader            // reads run snapshots from guard_runs
	path    path               // the event path; its buffers serve every tenure
	batch   []jetstream.Msg    // the batch being handled
	updated bool               // the consumer has the runner's configuration
}

func newPartition(r *Runner, id int) *partition {
	return &partition{
		r:       r,
		id:      id,
		log:     r.log.With("partition", id),
		release: make(chan struct{}, 1),
		path:    path{chain: recoverer{r.chain}, outputs: r.outputs, maxBytes: r.cfg.MaxEventBytes},
		batch:   make([]jetstream.Msg, 0, r.cfg.Batch),
	}
}

// run waits for the partition and owns it, in turn, until ctx is done.
func (p *partition) run(ctx context.Context) {
	for ctx.Err() == nil {
		if err := p.open(); err != nil {
			p.log.Warn("cannot read the streams back; trying again", "err", err, "after", retryPause)
			p.pause(ctx)
			continue
		}
		break
	}
	defer p.close()
	var pl *pull
	// A tenure pinned anew hands its pull on to the next; one that is
	// not begun as ctx is done must not keep it, pulling and holding the
	// pin until the connection closes.
	defer func() {
		if pl != nil {
			pl.close()
		}
	}()
	var first []jetstream.Msg
	for ctx.Err() == nil {
		if len(first) == 0 {
			var err error
			if pl, first, err = p.await(ctx); err != nil {
				p.log.Warn("cannot pull the partition; trying again", "err", err, "after", retryPause)
				p.pause(ctx)
				continue
			}
			if pl == nil {
				return
			}
		}
		pub, err := newPublisher(p.r.nc, p.r.cfg.PublishTimeout)
		if err != nil {
			p.log.Warn("cannot publish; trying again", "err", err, "after", retryPause)
			pl.close()
			first = nil
			p.pause(ctx)
			continue
		}
		t := newTenure(p, pinOf(first[0]), pub)
		how, next, err := t.own(ctx, pl, first)
		first = nil
		if ctx.Err() != nil {
			return
		}
		switch how {
		case endRepinned:
			first = next
		case endLost:
			p.log.Warn("partition lost to another instance; waiting for it again", "err", err)
		case endPullEnded:
			p.log.Warn("partition's pull ended; waiting for it again", "err", err)
		case endFailed:
			if missing(err) {
				err = p.r.assets.restore(ctx)
			}
			p.log.Warn("partition failed; waiting for it again", "err", err, "after", retryPause)
			p.pause(ctx)
		}
	}
}

// open opens the partition's readers of the streams.
func (p *partition) open() error {
	var err error
	if p.events == nil {
		if p.events, err = newReader(p.r.nc, streams.EventStream, maxScan, p.r.cfg.PublishTimeout); err != nil {
			return err
		}
	}
	if p.state == nil {
		p.state, err = newReader(p.r.nc, "KV_"+streams.RunsBucket, maxMultiLast, p.r.cfg.PublishTimeout)
	}
	return err
}

// close closes what open opened.
func (p *partition) close() {
	for _, rd := range []*reader{p.events, p.state} {
		if rd != nil {
			rd.close()
		}
	}
}

// await waits until the server pins the partition to this instance, and
// returns the pull with the first event delivered under the pin. It pulls
// only while this instance has room for another partition. It returns a
// nil pull once ctx is done.
func (p *partition) await(ctx context.Context) (*pull, []jetstream.Msg, error) {
	for {
		room, changed := p.r.bal.room()
		if !room {
			select {
			case <-ctx.Done():
				return nil, nil, nil
			case <-changed:
				continue
			}
		}
		if p.cons == nil {
			cp, err := readCheckpoint(ctx, p.state, p.id)
			if err != nil {
				return nil, nil, err
			}
			if p.cons, err = p.r.assets.consumer(ctx, p.id, cp.Seq+1, !p.updated); err != nil {
				return nil, nil, err
			}
			p.updated = true
		}
		cfg := p.r.cfg
		pl, err := startPull(p.cons, p.r.maxAckPending(), p.r.maxAckPending()+cfg.Batch, cfg.PinnedTTL, p.log)
		if err != nil {
			p.cons = nil
			return nil, nil, fmt.Errorf("runner: pulling from %s: %w", streams.ConsumerName(p.id), err)
		}
	waiting:
		for {
			select {
			case <-ctx.Done():
				pl.close()
				return nil, nil, nil
			case m := <-pl.msgs:
				return pl, []jetstream.Msg{m}, nil
			case err := <-pl.errs:
				// A pin refused: nats.go pulls again without it; but no
				// one answering pulls means the consumer is gone.
				if !errors.Is(err, nats.ErrNoResponders) {
					continue
				}
				pl.close()
				p.cons = nil
				p.pause(ctx)
				break waiting
			case <-pl.closed:
				// The consumer was deleted: look it up, or re-create it.
				pl.close()
				p.cons = nil
				p.pause(ctx)
				break waiting
			case <-changed:
				if room, changed = p.r.bal.room(); !room {
					pl.close()
					break waiting
				}
			}
		}
	}
}

// pause waits retryPause, or until ctx is done.
func (p *partition) pause(ctx context.Context) {
	select {
	case <-ctx.Done():
	case <-time.After(retryPause):
	}
}
