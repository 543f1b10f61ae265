package bench

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// running is a pipeline, the guard's, a loop or the responder, running in
// this process or a child until stopped; stop may be called more than once.
type running struct {
	stop func()
	pid  int // the child's process id; 0 in this process
}

// stopOnce returns a stop that cancels and waits for done, once.
func stopOnce(cancel context.CancelFunc, done <-chan struct{}, then func()) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			then()
		})
	}
}

// startLoop runs l on its own connection until stopped.
func startLoop(ctx context.Context, url string, cfg Config, l *loop) (*running, error) {
	nc, err := nats.Connect(url, nats.Name("guard-bench "+l.name))
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		if err := l.run(ctx, nc); err != nil {
			fmt.Fprintf(cfg.log, "%s: %v\n", l.name, err)
		}
		close(done)
	}()
	return &running{stop: stopOnce(cancel, done, nc.Close)}, nil
}

// replySubject is where the core request/reply floor's responder listens.
const replySubject = "bench.rr"

// startResponder runs the core request/reply floor on its own connection:
// a responder that answers each request with its echo.
func startResponder(url string) (*running, error) {
	nc, err := nats.Connect(url, nats.Name("guard-bench responder"))
	if err != nil {
		return nil, err
	}
	if _, err := nc.Subscribe(replySubject, func(m *nats.Msg) { _ = nc.Publish(m.Reply, echo(m.Data)) }); err != nil {
		nc.Close()
		return nil, err
	}
	if err := nc.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	var once sync.Once
	return &running{stop: func() { once.Do(nc.Close) }}, nil
}

// warnLevel passes the guard's records from warnings up.
var warnLevel = &slog.HandlerOptions{Level: slog.LevelWarn}

// startGuard runs guard-consumer's runner on its own connection, as it
// would run in its own process: the agents' traffic does not queue behind
// its own. Its log, from warnings up, goes to h, and its warnings are
// counted.
func startGuard(ctx context.Context, url string, cfg Config, h slog.Handler) (*running, error) {
	nc, err := nats.Connect(url, nats.Name("guard-bench runner"))
	if err != nil {
		return nil, err
	}
	rc := runner.DefaultConfig(cfg.Partitions)
	rc.CheckpointInterval = cfg.Checkpoint
	// The fleet is one tenant whose preloaded events the server stored
	// far faster than a tenant may send, over up to a million runs:
	// admission still runs on every event, with no tenant limit to
	// refuse them.
	rc.Admission.Tenant, rc.Admission.NewRuns = runner.Rate{}, runner.Rate{}
	// Each phase's runner stops with a complete checkpoint, however many
	// runs it changed, so that the next phase measures the guard and not
	// a recovery from an older checkpoint (which replays, reading the
	// whole stream per partition: minutes after the 1M-run phase).
	rc.DrainTimeout = cfg.Timeout
	js, err := jetstream.New(nc) // the output store reads through it; the runner writes
	if err != nil {
		nc.Close()
		return nil, err
	}
	outputs, err := objectstore.Open(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		nc.Close()
		return nil, err
	}
	rc.Logger = slog.New(cfg.warn.counting(h))
	pol, err := guard.Load(cfg.Policy)
	if err != nil {
		nc.Close()
		return nil, err
	}
	r, err := runner.New(ctx, nc, guard.Chain(pol), rc, runner.WithOutputs(outputs))
	if err != nil {
		nc.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		if err := r.Run(rctx); err != nil {
			fmt.Fprintf(cfg.log, "guard-consumer: %v\n", err)
		}
		close(done)
	}()
	return &running{stop: stopOnce(cancel, done, nc.Close)}, nil
}
