package service

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// Config configures a Service.
type Config struct {
	// NATSURL is the server or cluster to use; empty starts an embedded
	// server.
	NATSURL string
	// Embedded configures the embedded server when NATSURL is empty.
	Embedded embedded.Options
	Streams  streams.Config
	Outputs  objectstore.Config
	Runner   runner.Config
	Policy   guard.Policy
	Logger   *slog.Logger
}

// Version is guard-consumer's version, as the admin service reports it.
const Version = "0.1.0"

// Service is a running guard-consumer.
type Service struct {
	server *server.Server // nil when connected to an external server
	nc     *nats.Conn
	admin  micro.Service
	cancel context.CancelFunc
	done   chan error
	log    *slog.Logger
}

// Start starts the service and returns once it consumes events.
func Start(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Service{log: log}
	url := cfg.NATSURL
	if url == "" {
		if err := os.MkdirAll(cfg.Embedded.StoreDir, 0o755); err != nil {
			return nil, fmt.Errorf("service: data directory: %w", err)
		}
		srv, err := embedded.Start(cfg.Embedded)
		if err != nil {
			return nil, err
		}
		s.server, url = srv, srv.ClientURL()
		log.Info("embedded NATS server started", "url", url, "store", cfg.Embedded.StoreDir)
	}
	nc, err := nats.Connect(url, nats.Name("guard-consumer"), nats.MaxReconnects(-1),
		nats.DisconnectErrHandler(func(_ *nats.Conn, err error) {
			if err != nil {
				log.Warn("disconnected from NATS", "err", err)
			}
		}),
		nats.ReconnectHandler(func(nc *nats.Conn) { log.Info("reconnected to NATS", "url", nc.ConnectedUrl()) }))
	if err != nil {
		s.shutdownServer()
		return nil, fmt.Errorf("service: connecting to %s: %w", url, err)
	}
	s.nc = nc
	if err := s.start(ctx, cfg); err != nil {
		nc.Close()
		s.shutdownServer()
		return nil, err
	}
	return s, nil
}

func (s *Service) start(ctx context.Context, cfg Config) error {
	js, err := jetstream.New(s.nc)
	if err != nil {
		return err
	}
	if err := streams.Provision(ctx, js, cfg.Streams); err != nil {
		return err
	}
	outputs, err := objectstore.Provision(ctx, js, cfg.Outputs)
	if err != nil {
		return err
	}
	rcfg := cfg.Runner
	rcfg.Partitions, rcfg.Logger = cfg.Streams.Partitions, s.log
	r, err := runner.New(ctx, s.nc, guard.Chain(cfg.Policy), rcfg, runner.WithOutputs(outputs))
	if err != nil {
		return err
	}
	if s.admin, err = admin.Serve(s.nc, js, outputs, Version); err != nil {
		return fmt.Errorf("service: starting the admin API: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel, s.done = cancel, make(chan error, 1)
	go func() { s.done <- r.Run(rctx) }()
	return nil
}

// URL returns the URL of the NATS server the service uses.
func (s *Service) URL() string { return s.nc.ConnectedUrl() }

// Close stops consuming, lets in-flight batches finish, and shuts the
// embedded server down.
func (s *Service) Close() error {
	err := s.admin.Stop()
	s.cancel()
	err = errors.Join(err, <-s.done)
	if fErr := s.nc.FlushTimeout(5 * time.Second); fErr != nil && !errors.Is(fErr, nats.ErrConnectionClosed) {
		err = errors.Join(err, fErr)
	}
	s.nc.Close()
	s.shutdownServer()
	return err
}

func (s *Service) shutdownServer() {
	if s.server != nil {
		s.server.Shutdown()
		s.server.WaitForShutdown()
	}
}
