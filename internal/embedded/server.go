package embedded

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Options configure an embedded server.
type Options struct {
	// Name is the server's name, shown in monitoring.
	Name string
	// Host and Port are where clients connect. Port -1 picks a free port.
	Host string
	Port int
	// StoreDir is the JetStream storage directory. It is created if
	// missing, and locked while the server runs (see LockFile).
	StoreDir string
	// Sync says when stored writes are flushed to disk.
	Sync Sync
	// Logger receives the server's log lines; nil discards them.
	Logger *slog.Logger
	// ConfigFile, when set, is a nats-server configuration file the
	// server starts from (authorization, TLS, limits); its listen address
	// and store directory win over Host, Port and StoreDir.
	ConfigFile string
	// Auth is configuration text (accounts, users) applied when there is
	// no ConfigFile: the embedded default's authorization.
	Auth string
}

// ServerOptions returns the server options o stands for.
func (o Options) ServerOptions() (*server.Options, error) {
	so := &server.Options{}
	switch {
	case o.ConfigFile != "":
		var err error
		if so, err = server.ProcessConfigFile(o.ConfigFile); err != nil {
			return nil, fmt.Errorf("embedded: %w", err)
		}
	case o.Auth != "":
		if err := so.ProcessConfigString(o.Auth); err != nil {
			return nil, fmt.Errorf("embedded: the authorization config: %w", err)
		}
	}
	if so.ServerName == "" {
		so.ServerName = o.Name
	}
	if o.ConfigFile == "" || so.Host == "" && so.Port == 0 {
		so.Host, so.Port = o.Host, o.Port
	}
	if so.StoreDir == "" {
		so.StoreDir = o.StoreDir
	}
	if so.StoreDir == "" {
		return nil, errors.New("embedded: a JetStream store directory is required")
	}
	if o.ConfigFile == "" || !so.SyncAlways && so.SyncInterval == 0 {
		so.SyncAlways, so.SyncInterval = o.Sync.Always, o.Sync.interval()
	}
	so.JetStream, so.NoSigs, so.NoLog = true, true, o.Logger == nil
	return so, nil
}

// Start locks the store directory, starts a server with JetStream on it and
// waits until it accepts connections. Shut it down with Shutdown and
// WaitForShutdown; the lock is released when it has shut down. A store that
// another server uses fails with ErrStoreInUse.
func Start(o Options) (*server.Server, error) {
	so, err := o.ServerOptions()
	if err != nil {
		return nil, err
	}
	dir, err := filepath.Abs(so.StoreDir)
	if err != nil {
		return nil, fmt.Errorf("embedded: data directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("embedded: data directory: %w", err)
	}
	so.StoreDir = dir
	lock, err := lockStore(dir)
	if err != nil {
		return nil, err
	}
	s, err := start(o, so)
	if err != nil {
		lock.abandon()
		return nil, err
	}
	lock.own(s)
	return s, nil
}

func start(o Options, so *server.Options) (*server.Server, error) {
	s, err := server.NewServer(so)
	if err != nil {
		return nil, fmt.Errorf("embedded: configuring the server: %w", err)
	}
	if o.Logger != nil {
		s.SetLoggerV2(logger{o.Logger}, false, false, false)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		s.WaitForShutdown()
		return nil, fmt.Errorf("%w on %s:%d within 10s (is the port in use?)", ErrNotReady, so.Host, so.Port)
	}
	return s, nil
}

// logger adapts slog to the server's logging interface.
type logger struct{ l *slog.Logger }

// Noticef logs at debug: the server's notices (its banner, every
// connection) would drown guard-consumer's own lines.
func (l logger) Noticef(format string, v ...any) { l.l.Debug(fmt.Sprintf(format, v...)) }
func (l logger) Warnf(format string, v ...any)   { l.l.Warn(fmt.Sprintf(format, v...)) }
func (l logger) Errorf(format string, v ...any)  { l.l.Error(fmt.Sprintf(format, v...)) }
func (l logger) Fatalf(format string, v ...any)  { l.l.Error(fmt.Sprintf(format, v...)) }
func (l logger) Debugf(format string, v ...any)  { l.l.Debug(fmt.Sprintf(format, v...)) }
func (l logger) Tracef(format string, v ...any)  { l.l.Debug(fmt.Sprintf(format, v...)) }
