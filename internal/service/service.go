package service

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"time"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/health"
	"github.com/guardstream/guardstream/internal/metrics"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nkeys"
	"github.com/prometheus/client_golang/prometheus/promhttp"
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
	// HTTP is the host:port /livez, /readyz and /metrics are served on
	// (port 0 picks a free one); empty serves nothing.
	HTTP string
	// Production makes Start check what a production deployment needs,
	// streams replicated on servers that fsync every write, and warn about
	// what is missing.
	Production bool
	// Monitor lists the monitoring URLs (http://host:8222) of the NATS
	// servers at NATSURL. In production their /varz is read for the fsync
	// setting, which the servers show only there and to the system account.
	Monitor []string
	// Security says how guard-consumer authenticates and who may use the
	// embedded default's port.
	Security Security
}

// Security configures identities (docs/security.md).
type Security struct {
	// Client is how guard-consumer authenticates to the server at NATSURL,
	// or to an embedded server started from a configuration file. The
	// embedded default needs none: guard-consumer connects in process
	// with a key it makes at start.
	Client auth.Client
	// AnonymousTenant is the tenant that connections without credentials
	// act for on the embedded default's port: a tenant id, or
	// auth.AnyTenant (or empty) for every tenant.
	AnonymousTenant string
	// InsecureAnonymous lets connections without credentials in on an
	// interface beyond loopback.
	InsecureAnonymous bool
}

func (s Security) anonymousTenant() string { return cmp.Or(s.AnonymousTenant, auth.AnyTenant) }

// CheckSecurity refuses a security configuration that cannot work or
// would open the system, saying what to change. Start checks it too.
func (c Config) CheckSecurity() error {
	sec := c.Security
	if c.NATSURL != "" {
		if c.Embedded.ConfigFile != "" {
			return errors.New("-server-config configures the embedded server, which -nats-url replaces; give one of them")
		}
		return sec.Client.Validate()
	}
	if c.Embedded.ConfigFile == "" {
		if sec.Client.Set() {
			return errors.New("-creds, -nkey and -tls-* are for -nats-url or -server-config: on the embedded default guard-consumer connects in process with a key it makes at start")
		}
		if _, err := auth.For(auth.RoleAgent, sec.anonymousTenant()); err != nil {
			return fmt.Errorf("-anonymous-tenant: %w; want a tenant id or %q for every tenant", err, auth.AnyTenant)
		}
	}
	if err := sec.Client.Validate(); err != nil {
		return err
	}
	so, err := c.Embedded.ServerOptions()
	if err != nil {
		return err
	}
	if c.Embedded.ConfigFile == "" {
		so.NoAuthUser = "anonymous agent" // what the default's authorization will say
	}
	if err := auth.CheckListen(so, sec.InsecureAnonymous); err != nil {
		return err
	}
	if len(so.TrustedOperators) > 0 && sec.Client.Creds == "" {
		return fmt.Errorf("-server-config %s trusts an operator, so guard-consumer needs credentials: give -creds (guard-consumer creds issue -role guard)", c.Embedded.ConfigFile)
	}
	return nil
}

// Version is guard-consumer's version, as the admin service reports it.
const Version = "0.1.0"

// Service is a running guard-consumer.
type Service struct {
	server  *server.Server // nil when connected to an external server
	sync    embedded.Sync  // when the embedded server fsyncs, as it runs
	nc      atomic.Pointer[nats.Conn]
	started atomic.Bool // consuming, and not shutting down
	// claimed is set once the partitions have been claimed at start
	// (awaitClaims); until then claiming says what is awaited.
	claimed  atomic.Bool
	claiming atomic.Pointer[string]
	metrics  *metrics.Metrics
	http     *health.Server // nil when not serving HTTP
	admin    micro.Service
	agents   micro.Service
	cancel   context.CancelFunc
	stopped  chan struct{} // closed when the runner has returned
	runErr   error         // what it returned; read after stopped is closed
	log      *slog.Logger
}

// Start starts the service and returns once it consumes events. With a
// NATS URL it waits for the servers (as long as ctx allows) when they are
// unreachable or their JetStream is not ready yet; /readyz says why
// meanwhile.
func Start(ctx context.Context, cfg Config) (*Service, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if err := cfg.CheckSecurity(); err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	s := &Service{log: log, metrics: metrics.New(cfg.Streams.Partitions)}
	if cfg.HTTP != "" {
		h, err := health.Serve(cfg.HTTP, s.ready, promhttp.HandlerFor(s.metrics.Registry(), promhttp.HandlerOpts{}))
		if err != nil {
			return nil, fmt.Errorf("service: %w", err)
		}
		s.http = h
		log.Info("serving /livez, /readyz and /metrics", "http", "http://"+h.Addr())
	}
	if err := s.start(ctx, cfg); err != nil {
		s.release()
		return nil, err
	}
	return s, nil
}

// startEmbedded starts the embedded server and returns the options that
// connect guard-consumer to it in process: with a key made now on the
// embedded default, with its credentials on a server from a config file.
func (s *Service) startEmbedded(cfg Config) ([]nats.Option, error) {
	ec := cfg.Embedded
	if err := os.MkdirAll(ec.StoreDir, 0o755); err != nil {
		return nil, fmt.Errorf("data directory: %w", err)
	}
	var opts []nats.Option
	if ec.ConfigFile == "" {
		guardKey, err := nkeys.CreateUser()
		if err != nil {
			return nil, err
		}
		operator, err := auth.LocalOperator(ec.StoreDir)
		if err != nil {
			return nil, err
		}
		gpub, _ := guardKey.PublicKey()
		opub, _ := operator.PublicKey()
		if ec.Auth, err = (auth.Embedded{Guard: gpub, Operator: opub, AnonymousTenant: cfg.Security.anonymousTenant()}).Config(); err != nil {
			return nil, err
		}
		opts = append(opts, auth.KeyOption(guardKey))
	} else {
		o, err := cfg.Security.Client.Options()
		if err != nil {
			return nil, err
		}
		opts = o
	}
	if so, err := ec.ServerOptions(); err == nil {
		if anon, how := auth.Anonymous(so); anon && !auth.Loopback(so.Host) {
			s.log.Warn("INSECURE: any host that reaches the port may connect without credentials",
				"listen", fmt.Sprintf("%s:%d", so.Host, so.Port), "as", how)
		}
	}
	srv, err := embedded.Start(ec)
	if err != nil {
		return nil, err
	}
	// A configuration file's sync_interval wins over ec.Sync: say what the
	// server runs with.
	s.server, s.sync = srv, embedded.Running(srv)
	s.log.Info("embedded NATS server started", "url", srv.ClientURL(), "store", ec.StoreDir, "sync", s.sync)
	s.log.Info("durability: " + s.sync.Describe())
	return append(opts, nats.InProcessServer(srv)), nil
}

func (s *Service) start(ctx context.Context, cfg Config) error {
	var opts []nats.Option
	var err error
	if cfg.NATSURL == "" {
		opts, err = s.startEmbedded(cfg)
	} else {
		opts, err = cfg.Security.Client.Options()
	}
	if err != nil {
		return fmt.Errorf("service: %w", err)
	}
	nc, err := s.connect(ctx, cfg.NATSURL, cfg.NATSURL != "", opts...)
	if err != nil {
		return err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	var r *runner.Runner
	var outputs *objectstore.Store
	err = untilReady(ctx, s.log, cfg.NATSURL != "", func() error {
		var err error
		r, outputs, err = s.prepare(ctx, nc, js, cfg)
		return err
	})
	if err != nil {
		return err
	}
	s.metrics.Registry().MustRegister(metrics.NewConsumers(js, cfg.Streams.Partitions))
	s.checkDurability(ctx, js, cfg)
	if s.admin, err = admin.Serve(nc, js, outputs, Version); err != nil {
		return fmt.Errorf("service: starting the admin API: %w", err)
	}
	if s.agents, err = admin.ServeAgents(nc, js, outputs, Version); err != nil {
		return fmt.Errorf("service: starting the agent API: %w", err)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	s.cancel, s.stopped = cancel, make(chan struct{})
	go func() {
		s.runErr = r.Run(rctx)
		close(s.stopped)
	}()
	go s.awaitClaims(rctx, r.Registered(), nc, js, cfg.Streams.Partitions)
	s.started.Store(true)
	return nil
}

// prepare provisions the streams and buckets and builds the runner.
func (s *Service) prepare(ctx context.Context, nc *nats.Conn, js jetstream.JetStream, cfg Config) (*runner.Runner, *objectstore.Store, error) {
	if err := streams.Provision(ctx, js, cfg.Streams); err != nil {
		return nil, nil, err
	}
	outputs, err := objectstore.Provision(ctx, js, cfg.Outputs)
	if err != nil {
		return nil, nil, err
	}
	rcfg := cfg.Runner
	rcfg.Partitions, rcfg.Logger = cfg.Streams.Partitions, s.log
	r, err := runner.New(ctx, nc, guard.Chain(cfg.Policy), rcfg, runner.WithOutputs(outputs), runner.WithObserver(s.metrics))
	if err != nil {
		return nil, nil, err
	}
	return r, outputs, nil
}

// ready says why the service is not ready, or nil: it is connected to
// NATS, the partitions were claimed once it started (awaitClaims), and
// every partition it owns has recovered.
func (s *Service) ready() error {
	nc := s.nc.Load()
	switch {
	case nc == nil:
		return errors.New("connecting to NATS")
	case !nc.IsConnected():
		return fmt.Errorf("NATS unreachable (connection %s)", nc.Status())
	case !s.started.Load():
		return errors.New("starting (provisioning the streams) or shutting down")
	case s.Err() != nil:
		return s.Err()
	case !s.claimed.Load():
		if why := s.claiming.Load(); why != nil {
			return errors.New("claiming the partitions: " + *why)
		}
		return errors.New("claiming the partitions")
	}
	if p := s.metrics.Recovering(); len(p) > 0 {
		return fmt.Errorf("partitions %v are still recovering", p)
	}
	return nil
}

// URL returns the URL of the NATS server the service uses: the embedded
// server's client URL, where agents connect.
func (s *Service) URL() string {
	if s.server != nil {
		return s.server.ClientURL()
	}
	if nc := s.nc.Load(); nc != nil {
		return nc.ConnectedUrl()
	}
	return ""
}

// HTTPAddr returns the address /livez, /readyz and /metrics are served
// on, or "" when they are not served.
func (s *Service) HTTPAddr() string {
	if s.http == nil {
		return ""
	}
	return s.http.Addr()
}

// Stopped returns a channel that is closed when the service has stopped
// consuming: after Close, or by itself when the runner cannot go on (see
// Err).
func (s *Service) Stopped() <-chan struct{} { return s.stopped }

// Err returns why the runner has stopped, or nil while it runs.
func (s *Service) Err() error {
	select {
	case <-s.stopped:
		if s.runErr != nil {
			return fmt.Errorf("the runner stopped: %w", s.runErr)
		}
		return errors.New("the runner stopped")
	default:
		return nil
	}
}

// Close stops consuming, lets in-flight batches finish, and shuts the
// embedded server down. /readyz fails from the start of Close.
func (s *Service) Close() error {
	s.started.Store(false)
	err := errors.Join(s.admin.Stop(), s.agents.Stop())
	s.cancel()
	<-s.stopped
	err = errors.Join(err, s.runErr)
	if fErr := s.nc.Load().FlushTimeout(5 * time.Second); fErr != nil && !errors.Is(fErr, nats.ErrConnectionClosed) {
		err = errors.Join(err, fErr)
	}
	return errors.Join(err, s.release())
}

// release closes the connection, the embedded server and the HTTP server,
// whichever have started.
func (s *Service) release() error {
	if nc := s.nc.Load(); nc != nil {
		nc.Close()
	}
	if s.server != nil {
		s.server.Shutdown()
		s.server.WaitForShutdown()
	}
	if s.http != nil {
		return s.http.Close()
	}
	return nil
}
