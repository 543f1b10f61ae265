package runner

import (
	"context"
	"errors"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// maxInflight is how many batches a partition keeps published but not yet
// acked: enough to keep the server busy while the next batch is decided.
const maxInflight = 4

// futures is a list of publishes confirmed in order.
type futures struct {
	futs []jetstream.PubAckFuture
	acks []uint64 // stream sequence of each confirmed publish
}

// next returns the first unconfirmed publish, or nil if all are stored.
func (f *futures) next() jetstream.PubAckFuture {
	if len(f.acks) < len(f.futs) {
		return f.futs[len(f.acks)]
	}
	return nil
}

// poll confirms the publishes that are stored, in order, waiting for them
// if wait is set, and reports whether all are.
func (f *futures) poll(ctx context.Context, wait bool) (bool, error) {
	for fut := f.next(); fut != nil; fut = f.next() {
		if !wait {
			select {
			case ack := <-fut.Ok():
				f.acks = append(f.acks, ack.Sequence)
				continue
			case err := <-fut.Err():
				return false, errors.Join(errPublish, err)
			default:
				return false, nil
			}
		}
		select {
		case ack := <-fut.Ok():
			f.acks = append(f.acks, ack.Sequence)
		case err := <-fut.Err():
			return false, errors.Join(errPublish, err)
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	return true, nil
}

func (f *futures) reset() {
	clear(f.futs)
	f.futs, f.acks = f.futs[:0], f.acks[:0]
}

// pending is a handled batch whose publishes are not all stored yet.
type pending struct {
	last jetstream.Msg // acking it acks the batch (AckAll)
	futures
}

func (p *partition) newPending() *pending {
	if n := len(p.free); n > 0 {
		b := p.free[n-1]
		p.free = p.free[:n-1]
		return b
	}
	return &pending{}
}

// publishAsync publishes msg without waiting for the server to store it,
// as every publish of the pipeline is. When the connection has as many
// publishes outstanding as it allows, nats.go waits a moment and then
// refuses; that is a slow server pushing back, not a failure, so it tries
// again until there is room. Outstanding publishes leave either stored or
// timed out, so there will be.
func (p *partition) publishAsync(ctx context.Context, msg *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	for {
		f, err := p.r.js.PublishMsgAsync(msg, opts...)
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			return f, err
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
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
		stored, err := b.poll(ctx, block || len(p.inflight) > maxInflight)
		if err != nil || !stored {
			return err
		}
		if err := b.last.Ack(); err != nil {
			return err
		}
		p.inflight = p.inflight[1:]
		b.reset()
		b.last = nil
		p.free = append(p.free, b)
	}
	return nil
}

// waiting returns the publish the partition waits on first: the oldest
// unconfirmed one of the oldest batch, or else of the checkpoint being
// written; nil when nothing is outstanding.
func (p *partition) waiting() jetstream.PubAckFuture {
	if len(p.inflight) > 0 {
		return p.inflight[0].next()
	}
	if p.writing != nil {
		return p.writing.next()
	}
	return nil
}

// progress moves the pipeline and the checkpoint on, without waiting.
func (p *partition) progress(ctx context.Context) error {
	if err := p.settle(ctx, false); err != nil {
		return err
	}
	return p.advanceCheckpoint(ctx, false)
}
