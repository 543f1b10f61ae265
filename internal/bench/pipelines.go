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

// running is a pipeline, the guard's or the baseline's, running in this
// process until stopped; stop may be called more than once.
type running struct {
	stop func()
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

// startBaseline runs the baseline on its own connection, configured as
// the runner's, until stopped.
func startBaseline(ctx context.Context, url string, cfg Config, b *baseline) (*running, error) {
	nc, js, err := connect(url, "guard-bench baseline")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		if err := b.run(ctx, js); err != nil {
			fmt.Fprintf(cfg.log, "baseline: %v\n", err)
		}
		close(done)
	}()
	return &running{stop: stopOnce(cancel, done, nc.Close)}, nil
}

// connect opens a connection with the runner's publish settings.
func connect(url, name string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url, nats.Name(name))
	if err != nil {
		return nil, nil, err
	}
	rc := runner.DefaultConfig(1)
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(rc.PublishTimeout), jetstream.WithPublishAsyncMaxPending(rc.MaxPending))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// startGuard runs guard-consumer's runner on its own connection, as it
// would run in its own process: the agents' traffic does not queue behind
// its own.
func startGuard(ctx context.Context, url string, cfg Config) (*running, error) {
	nc, js, err := connect(url, "guard-bench runner")
	if err != nil {
		return nil, err
	}
	outputs, err := objectstore.Open(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		nc.Close()
		return nil, err
	}
	rc := runner.DefaultConfig(cfg.Partitions)
	rc.CheckpointInterval = cfg.Checkpoint
	rc.Logger = slog.New(slog.NewTextHandler(cfg.log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), rc, runner.WithOutputs(outputs))
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
