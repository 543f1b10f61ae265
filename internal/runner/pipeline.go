package runner

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go/jetstream"
)

// maxInflight is how many batches a partition keeps published but not yet
// acked: enough to keep the server busy while the next batch is decided.
const maxInflight = 4

// pending is a handled batch whose publishes are not all stored yet.
type pending struct {
	last jetstream.Msg // acking it acks the batch (AckAll)
	futs []jetstream.PubAckFuture
	done int // futures known to be stored
}

func (p *partition) newPending() *pending {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	return &pending{}
}

// track adds a publish of the current batch.
func (p *partition) track(f jetstream.PubAckFuture) {
	p.cur.futs = append(p.cur.futs, f)
}

// settle acks the batches whose publishes are all stored, in order. With
// block set, or when the pipeline is full, it waits for them; otherwise it
// stops at the first batch still waiting. A failed publish fails the
// partition: nothing after it is acked.
func (p *partition) settle(ctx context.Context, block bool) error {
	for len(p.inflight) > 0 {
		b := p.inflight[0]
		wait := block || len(p.inflight) > maxInflight
		stored, err := b.poll(ctx, wait)
		if err != nil {
			return err
		}
		if !stored {
			return nil
		}
		if err := b.last.Ack(); err != nil {
			return err
		}
		p.inflight = p.inflight[1:]
		clear(b.futs)
		b.futs, b.done, b.last = b.futs[:0], 0, nil
		p.free = append(p.free, b)
	}
	return nil
}

// poll reports whether every publish of the batch is stored, waiting for
// them if wait is set.
func (b *pending) poll(ctx context.Context, wait bool) (bool, error) {
	for ; b.done < len(b.futs); b.done++ {
		f := b.futs[b.done]
		if !wait {
			select {
			case <-f.Ok():
				continue
			case err := <-f.Err():
				return false, errors.Join(errPublish, err)
			default:
				return false, nil
			}
		}
		select {
		case <-f.Ok():
		case err := <-f.Err():
			return false, errors.Join(errPublish, err)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return true, nil
}
