package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

const (
	// claimEvery is how often a starting instance looks whether the
	// partitions have been claimed.
	claimEvery = 250 * time.Millisecond
	// surveyWait is how long a look waits for the runners to answer.
	surveyWait = 250 * time.Millisecond
)

// awaitClaims holds readiness back at start until the partitions have
// been claimed: every partition's consumer has a leader, and every
// partition with events waiting or unacknowledged is pinned to an
// instance that is alive, this one or another. An instance
// that starts alone, or after a crash whose pins are still on the server,
// is then ready only once it has taken what there is to take, and, as
// ready requires of the partitions it owns, recovered them. It looks every
// claimEvery until that holds once, or ctx is done; what it waits for
// meanwhile is what /readyz says.
func (s *Service) awaitClaims(ctx context.Context, registered <-chan struct{}, nc *nats.Conn, js jetstream.JetStream, partitions int) {
	start := time.Now()
	select { // the runner surveyed while it registers is a data race in nats.go
	case <-ctx.Done():
		return
	case <-s.stopped:
		return
	case <-registered:
	}
	tick := time.NewTicker(claimEvery)
	defer tick.Stop()
	for {
		err := unclaimed(ctx, nc, js, partitions)
		if err == nil {
			s.claimed.Store(true)
			s.log.Info("partitions claimed", "after", time.Since(start).Round(time.Millisecond))
			return
		}
		why := err.Error()
		s.claiming.Store(&why)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// unclaimed says which partition has events to deliver and no live
// instance holding it, or returns nil when there is none.
func unclaimed(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, partitions int) error {
	held, answers, err := livePins(ctx, nc)
	if err != nil {
		return err
	}
	if answers == 0 {
		return fmt.Errorf("no runner answers on the %s service yet", streams.RunnerService)
	}
	clustered := nc.ConnectedClusterName() != ""
	for p := range partitions {
		c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
		if err != nil {
			return fmt.Errorf("partition %d: %w", p, err)
		}
		info := c.CachedInfo()
		if clustered && (info.Cluster == nil || info.Cluster.Leader == "") {
			// Events would wait for an election: on a cold cluster with
			// slow storage, tens of seconds. (A member that has the
			// consumer assigned but not started yet answers with no
			// cluster info.)
			return fmt.Errorf("partition %d's consumer has no leader yet", p)
		}
		work := info.NumPending + uint64(info.NumAckPending)
		if work == 0 {
			continue
		}
		pin := ""
		for _, g := range info.PriorityGroups {
			if g.Group == streams.PriorityGroup {
				pin = g.PinnedClientID
			}
		}
		if !held[pin] {
			return fmt.Errorf("partition %d has %d events to deliver and no live instance holds it", p, work)
		}
	}
	return nil
}

// livePins asks every runner sharing the partitions, as `nats micro stats
// guard-runner` does, for the pins it holds, and returns them with the
// number of runners that answered within surveyWait.
func livePins(ctx context.Context, nc *nats.Conn) (map[string]bool, int, error) {
	subj, err := micro.ControlSubject(micro.StatsVerb, streams.RunnerService, "")
	if err != nil {
		return nil, 0, err
	}
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, 0, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := nc.PublishRequest(subj, inbox, nil); err != nil {
		return nil, 0, err
	}
	ctx, cancel := context.WithTimeout(ctx, surveyWait)
	defer cancel()
	held, answers := map[string]bool{}, 0
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrNoResponders) {
			return held, answers, nil
		}
		if err != nil {
			return nil, 0, err
		}
		var st micro.Stats
		if json.Unmarshal(m.Data, &st) != nil {
			continue
		}
		answers++
		for _, e := range st.Endpoints {
			var pins map[string]string // partition -> pin
			if json.Unmarshal(e.Data, &pins) == nil {
				for _, pin := range pins {
					held[pin] = true
				}
			}
		}
	}
}
