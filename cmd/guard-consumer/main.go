// Command guard-consumer enforces runtime guardrails for fleets of
// tool-using LLM agents: it consumes the events agents publish to NATS
// JetStream and publishes allow, advise, reject, defer and stop decisions
// back.
//
// With no flags it starts an embedded JetStream server on 127.0.0.1:4222
// and stores its data under the user's state directory:
//
//	go run ./cmd/guard-consumer
//
// With --nats-url it uses an existing server or cluster instead, and with
// -server-config it starts the embedded server from a nats-server config
// file. 'guard-consumer creds' issues credentials (docs/security.md).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/health"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/service"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
)

// DefaultHTTP is where /livez, /readyz and /metrics are served by default:
// loopback only, on a port apart from NATS's (4222 clients, 8222
// monitoring).
const DefaultHTTP = "127.0.0.1:8280"

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "output":
			return outputCmd(args[1:], stdout, stderr)
		case "creds":
			return credsCmd(args[1:], stdout, stderr)
		case "ready":
			return readyCmd(args[1:], stdout, stderr)
		}
	}
	cfg, printPolicy, err := parse(args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return 0
	case err != nil:
		fmt.Fprintf(stderr, "guard-consumer: %v\nRun 'guard-consumer -h' for the flags.\n", err)
		return 2
	}
	if printPolicy {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(cfg.Policy)
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := cfg.Logger
	svc, err := service.Start(ctx, cfg)
	if errors.Is(err, health.ErrListen) && cfg.HTTP == DefaultHTTP {
		// Only the default address: one that was asked for must be had.
		log.Warn("health and metrics are not served: the default address is in use (set -http)", "err", err)
		cfg.HTTP = ""
		svc, err = service.Start(ctx, cfg)
	}
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	log.Info("guard-consumer running; stop with Ctrl-C", "nats", svc.URL(), "partitions", cfg.Streams.Partitions)
	code := 0
	select {
	case <-ctx.Done():
		log.Info("shutting down")
	case <-svc.Stopped():
		// Exit, so that a supervisor starts a fresh process.
		log.Error("cannot go on", "err", svc.Err())
		code = 1
	}
	if err := svc.Close(); err != nil {
		log.Error("shutdown", "err", err)
		return 1
	}
	return code
}

func parse(args []string, stderr io.Writer) (service.Config, bool, error) {
	fs := flag.NewFlagSet("guard-consumer", flag.ContinueOnError)
	fs.SetOutput(stderr)
	sc := streams.DefaultConfig()
	oc := objectstore.DefaultConfig()
	rc := runner.DefaultConfig(sc.Partitions)
	var (
		natsURL     = fs.String("nats-url", "", "use the NATS server or cluster at this URL (e.g. nats://10.0.0.1:4222,nats://10.0.0.2:4222)\ninstead of starting an embedded one")
		listen      = fs.String("listen", "127.0.0.1:4222", "host:port the embedded server listens on for agents (port -1 picks a free port)")
		dataDir     = fs.String("data-dir", defaultDataDir(), "JetStream storage directory of the embedded server; one server at a time (it is locked)")
		syncFlag    = fs.String("sync", embedded.DefaultSyncInterval.String(), "when the embedded server fsyncs: always (every write survives a power loss),\nor a duration (a power loss can lose the writes since the last fsync)")
		policyPath  = fs.String("policy", "", "YAML or JSON policy file, or a preset by name ("+strings.Join(guard.Presets(), ", ")+"); settings a file leaves out keep the values of the preset it starts from (see -print-policy)")
		printPolicy = fs.Bool("print-policy", false, "print the effective policy as JSON and exit")
		logLevel    = fs.String("log-level", "info", "log level: debug, info, warn or error")
		logFormat   = fs.String("log-format", "text", "log format: text or json")
		serverConf  = fs.String("server-config", "", "start the embedded server from this nats-server config file (authorization, TLS),\nsuch as one that includes the auth.conf 'guard-consumer creds init' writes")
		httpAddr    = fs.String("http", DefaultHTTP, "host:port to serve /livez, /readyz and /metrics on (0.0.0.0:8280 for other hosts), or off")
		profile     = fs.String("profile", "dev", "dev, or production: warn at start about streams with fewer than 3 replicas,\nNATS servers that do not fsync every write, and a -nats-url connection without -creds or -nkey, or without TLS")
		monitor     = fs.String("nats-monitor", "", "comma-separated monitoring URLs of the NATS servers (http://nats-1:8222,...),\nread by -profile production for their fsync setting")
		sec         service.Security
	)
	client := new(auth.Client)
	client.RegisterFlags(fs)
	fs.StringVar(&sec.AnonymousTenant, "anonymous-tenant", auth.AnyTenant, "tenant that connections without credentials act for on the embedded default's port:\na tenant id, or * for every tenant")
	fs.BoolVar(&sec.InsecureAnonymous, "insecure-anonymous", false, "let connections without credentials in on an interface beyond loopback (any host that reaches the port acts as an agent)")
	fs.IntVar(&sc.Partitions, "partitions", sc.Partitions, "number of event partitions; fixed once the streams exist")
	fs.IntVar(&sc.Replicas, "replicas", sc.Replicas, "replicas of every stream and bucket: 1 on one server, 3 on a cluster")
	fs.DurationVar(&sc.EventMaxAge, "event-max-age", sc.EventMaxAge, "how long AGENT_EVENTS keeps events")
	fs.DurationVar(&sc.Duplicates, "duplicates", sc.Duplicates, "window in which a republished event or decision is dropped")
	fs.DurationVar(&oc.MaxAge, "output-max-age", oc.MaxAge, "how long full tool outputs are kept in the GUARD_OUTPUTS stream")
	fs.IntVar(&rc.Batch, "batch", rc.Batch, "most events processed per batch")
	fs.DurationVar(&rc.AckWait, "ack-wait", rc.AckWait, "time the server waits for an ack before redelivering")
	fs.IntVar(&rc.MaxEventBytes, "max-event-bytes", rc.MaxEventBytes, "largest event accepted: AGENT_EVENTS refuses one more than 1 KiB over it to its publisher,\nthe runner dead-letters the others over it as oversize")
	limitFlags(fs, &sc, &oc)
	admissionFlags(fs, &rc.Admission)
	fs.DurationVar(&rc.CheckpointInterval, "checkpoint-interval", rc.CheckpointInterval, "how often run state is written to guard_runs; a restart replays the events since")
	fs.DurationVar(&rc.DrainTimeout, "drain-timeout", rc.DrainTimeout, "how long a partition may take, at shutdown or hand-over, to finish its batches and checkpoint;\npast it, the next owner replays from the last complete checkpoint")
	fs.Usage = func() {
		fmt.Fprintf(stderr, `guard-consumer enforces runtime guardrails for LLM agent fleets over NATS JetStream.

Usage:
  guard-consumer [flags]
  guard-consumer output -tenant T -run R -call C    print the full output of a call
  guard-consumer creds init|setup|issue|revoke|rotate|retire  manage credentials (docs/security.md)
  guard-consumer ready [-http host:port]             exit 0 if a guard-consumer there is ready

With no flags it starts an embedded JetStream server on 127.0.0.1:4222, with
its data in %s, and guards every agent that publishes to it.
Connections without credentials get an agent's rights (-anonymous-tenant):
they publish events and read decisions, and cannot publish decisions or
reach JetStream.

Flags:
`, defaultDataDir())
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return service.Config{}, false, err
		}
		return service.Config{}, false, usageError{err.Error()}
	}
	if fs.NArg() > 0 {
		return service.Config{}, false, usageError{fmt.Sprintf("unexpected argument %q; guard-consumer takes flags, or the subcommand output or ready", fs.Arg(0))}
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	logger, err := newLogger(*logLevel, *logFormat, stderr)
	if err != nil {
		return service.Config{}, false, err
	}
	pol, err := guard.Load(*policyPath)
	if err != nil {
		return service.Config{}, false, err
	}
	sc.EventMaxMsgSize = rc.MaxEventBytes
	if err := sc.Validate(); err != nil {
		return service.Config{}, false, usageError{err.Error()}
	}
	rc.Partitions = sc.Partitions
	rc.PublishTimeout = min(rc.PublishTimeout, rc.AckWait/2)
	if err := rc.Validate(); err != nil {
		return service.Config{}, false, usageError{err.Error()}
	}
	oc.Replicas = sc.Replicas
	if err := oc.Validate(); err != nil {
		return service.Config{}, false, usageError{err.Error()}
	}
	sec.Client = *client
	cfg := service.Config{NATSURL: *natsURL, Streams: sc, Outputs: oc, Runner: rc, Policy: pol, Logger: logger, HTTP: *httpAddr, Security: sec}
	if *httpAddr == "off" {
		cfg.HTTP = ""
	}
	switch *profile {
	case "dev":
	case "production":
		cfg.Production = true
	default:
		return service.Config{}, false, usageError{fmt.Sprintf("-profile %q: want dev or production", *profile)}
	}
	if *monitor != "" {
		cfg.Monitor = strings.Split(*monitor, ",")
	}
	if *natsURL != "" {
		for _, name := range []string{"listen", "data-dir", "sync"} {
			if set[name] {
				return service.Config{}, false, usageError{fmt.Sprintf("-%s configures the embedded server, which -nats-url replaces; set it in the NATS servers' own config", name)}
			}
		}
	}
	if *natsURL == "" {
		host, port, err := splitListen(*listen)
		if err != nil {
			return service.Config{}, false, err
		}
		sync, err := embedded.ParseSync(*syncFlag)
		if err != nil {
			return service.Config{}, false, usageError{"-sync: " + err.Error()}
		}
		cfg.Embedded = embedded.Options{Name: "guard-consumer", Host: host, Port: port, StoreDir: *dataDir, Sync: sync,
			Logger: logger.With("component", "nats-server"), ConfigFile: *serverConf}
	} else {
		cfg.Embedded.ConfigFile = *serverConf
	}
	if err := cfg.CheckSecurity(); err != nil {
		return service.Config{}, false, usageError{err.Error()}
	}
	return cfg, *printPolicy, nil
}

func splitListen(s string) (string, int, error) {
	host, portStr, err := net.SplitHostPort(s)
	if err != nil {
		return "", 0, usageError{fmt.Sprintf("-listen %q: want host:port, such as 127.0.0.1:4222", s)}
	}
	port, err := strconv.Atoi(portStr)
	if err != nil || port < -1 || port > 65535 {
		return "", 0, usageError{fmt.Sprintf("-listen %q: the port must be a number from 0 to 65535, or -1 for any free port", s)}
	}
	return host, port, nil
}

func newLogger(level, format string, w io.Writer) (*slog.Logger, error) {
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		return nil, usageError{fmt.Sprintf("-log-level %q: want debug, info, warn or error", level)}
	}
	opts := &slog.HandlerOptions{Level: lv}
	switch format {
	case "text":
		return slog.New(slog.NewTextHandler(w, opts)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, opts)), nil
	}
	return nil, usageError{fmt.Sprintf("-log-format %q: want text or json", format)}
}

// defaultDataDir is $XDG_STATE_HOME/guardstream, or ~/.local/state/guardstream.
func defaultDataDir() string {
	if d := os.Getenv("XDG_STATE_HOME"); d != "" {
		return filepath.Join(d, "guardstream")
	}
	if home, err := os.UserHomeDir(); err == nil {
		return filepath.Join(home, ".local", "state", "guardstream")
	}
	return filepath.Join(os.TempDir(), "guardstream")
}
