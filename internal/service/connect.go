package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// connect connects to url, or in process to the embedded server that opts
// name. With wait, a server that is not reachable yet is waited for until
// ctx is done, as a cluster that starts beside guard-consumer is; without,
// it is an error at once.
func (s *Service) connect(ctx context.Context, url string, wait bool, opts ...nats.Option) (*nats.Conn, error) {
	log := s.log
	opts = append([]nats.Option{nats.Name("guard-consumer"), nats.MaxReconnects(-1), nats.RetryOnFailedConnect(wait),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("reconnected to NATS", "url", nc.ConnectedUrl()) })}, opts...)
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("service: connecting to %s: %w", cmp.Or(url, "the embedded server"), err)
	}
	s.nc.Store(nc)
	if nc.IsConnected() {
		return nc, nil
	}
	log.Warn("NATS is not reachable yet; waiting for it", "url", url)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for !nc.IsConnected() {
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("service: connecting to %s: %w", url, ctx.Err())
		case <-tick.C:
		}
	}
	log.Info("connected to NATS", "url", nc.ConnectedUrl())
	return nc, nil
}

// untilReady runs step, and with wait runs it again while it fails for a
// reason that passes by itself (a cluster still electing its leaders or
// waiting for peers, a timeout), until ctx is done. Any other error is
// returned at once.
func untilReady(ctx context.Context, log *slog.Logger, wait bool, step func() error) error {
	pause := 250 * time.Millisecond
	for {
		err := step()
		if err == nil || !wait || !transient(err) {
			return err
		}
		log.Warn("JetStream is not ready yet; retrying", "err", err, "after", pause)
		select {
		case <-ctx.Done():
			return errors.Join(err, ctx.Err())
		case <-time.After(pause):
		}
		pause = min(2*pause, 5*time.Second)
	}
}

// transient reports whether err passes by itself: the server's JetStream
// is not up or its cluster has no leader or not enough peers yet, a
// request timed out, or a stream just provisioned is not found yet (on a
// cluster, an instance that asks to create a stream another is creating
// is answered at once, before every server has it).
func transient(err error) bool {
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		return true
	}
	var api *jetstream.APIError
	if errors.As(err, &api) {
		switch int(api.ErrorCode) {
		case int(server.JSClusterNotAvailErr), int(server.JSClusterNoPeersErrF), int(server.JSInsufficientResourcesErr):
			return true
		}
		return api.Code == 503
	}
	return errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, context.DeadlineExceeded) || errors.Is(err, jetstream.ErrJetStreamNotEnabled)
}
