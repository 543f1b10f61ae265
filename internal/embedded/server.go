package embedded

import (
	"errors"
	"fmt"
	"log/slog"
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
	// StoreDir is the JetStream storage directory.
	StoreDir string
	// Logger receives the server's log lines; nil discards them.
	Logger *slog.Logger
}

// ErrNotReady is returned when the server does not accept connections in
// time.
var ErrNotReady = errors.New("embedded: server did not become ready")

// Start starts a server with JetStream and waits until it accepts
// connections. Shut it down with Shutdown and WaitForShutdown.
func Start(o Options) (*server.Server, error) {
	if o.StoreDir == "" {
		return nil, errors.New("embedded: a JetStream store directory is required")
	}
	s, err := server.NewServer(&server.Options{
		ServerName: o.Name,
		Host:       o.Host,
		Port:       o.Port,
		JetStream:  true,
		StoreDir:   o.StoreDir,
		NoSigs:     true,
		NoLog:      o.Logger == nil,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded: configuring the server: %w", err)
	}
	if o.Logger != nil {
		s.SetLoggerV2(logger{o.Logger}, false, false, false)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("%w on %s:%d within 10s (is the port in use?)", ErrNotReady, o.Host, o.Port)
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
