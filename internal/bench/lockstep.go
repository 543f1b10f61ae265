package bench

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// The runner's limits before issue 14, which the old baseline copied.
const (
	lockstepBatch   = 256
	lockstepBatches = 4
	lockstepPending = 4_000
	lockstepTimeout = 5 * time.Second
)

// lockstepInflight is an old-baseline batch published but not yet acked.
type lockstepInflight struct {
	last jetstream.Msg
	futs []jetstream.PubAckFuture
	done int
}

// answerInLockstep is the baseline before issue 14, kept to measure the
// new one against: the runner's pipeline of the time with nothing decided.
// Each event draws one publish with a Nats-Msg-Id; up to four batches (of
// up to 256 events, however few arrived) are in flight, each acked
// (AckAll) once its publishes are stored, and the loop waits on events and
// on the oldest publish at once.
func answerInLockstep(ctx context.Context, nc *nats.Conn, cons jetstream.Consumer, subject string) error {
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(lockstepTimeout), jetstream.WithPublishAsyncMaxPending(lockstepPending))
	if err != nil {
		return err
	}
	msgs := make(chan jetstream.Msg, 2*lockstepBatch)
	cc, err := cons.Consume(func(m jetstream.Msg) {
		select {
		case msgs <- m:
		case <-ctx.Done():
		}
	}, jetstream.PullMaxMessages(lockstepBatch), jetstream.PullHeartbeat(pullHeartbeat))
	if err != nil {
		return err
	}
	defer cc.Stop()
	var queue []*lockstepInflight
	for {
		var stored <-chan *jetstream.PubAck
		var failed <-chan error
		if len(queue) > 0 {
			f := queue[0].futs[queue[0].done]
			stored, failed = f.Ok(), f.Err()
		}
		select {
		case <-ctx.Done():
			return nil
		case err := <-failed:
			return err
		case <-stored:
			queue[0].done++
		case m := <-msgs:
			batch := &lockstepInflight{}
			for {
				meta, err := m.Metadata()
				if err != nil {
					return err
				}
				out := &nats.Msg{Subject: subject, Data: echo(m.Data())}
				f, err := publishAsync(js, out, jetstream.WithMsgID("b."+strconv.FormatUint(meta.Sequence.Stream, 10)))
				if err != nil {
					return err
				}
				batch.futs, batch.last = append(batch.futs, f), m
				if len(batch.futs) == lockstepBatch || len(msgs) == 0 {
					break
				}
				m = <-msgs
			}
			queue = append(queue, batch)
		}
		// Ack what is stored, in order; wait when the pipeline is full.
		for len(queue) > 0 {
			q := queue[0]
			for q.done < len(q.futs) {
				if len(queue) <= lockstepBatches {
					select {
					case <-q.futs[q.done].Ok():
						q.done++
						continue
					default:
					}
					break
				}
				select {
				case <-q.futs[q.done].Ok():
					q.done++
				case err := <-q.futs[q.done].Err():
					return err
				}
			}
			if q.done < len(q.futs) {
				break
			}
			if err := q.last.Ack(); err != nil {
				return err
			}
			queue = queue[1:]
		}
	}
}

// publishAsync publishes asynchronously, waiting for the server to catch up
// whenever too many publishes are outstanding.
func publishAsync(js jetstream.JetStream, m *nats.Msg, opts ...jetstream.PublishOpt) (jetstream.PubAckFuture, error) {
	for {
		f, err := js.PublishMsgAsync(m, opts...)
		if !errors.Is(err, jetstream.ErrTooManyStalledMsgs) {
			return f, err
		}
		<-js.PublishAsyncComplete()
	}
}
