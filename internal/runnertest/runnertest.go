package runnertest

import (
	"bytes"
	"context"
	"log/slog"
	"sync"
	"testing"

	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/processors"
	"github.com/nats-io/nats.go"
)

// Start runs a runner of chain with cfg on nc until the returned stop is
// called or the test ends; stop waits for Run to return, and fails the
// test if it returned an error. A runner without a logger logs into a
// buffer that is printed if the test fails.
func Start(t testing.TB, nc *nats.Conn, chain *processors.Chain, cfg runner.Config, opts ...runner.Option) (stop func()) {
	t.Helper()
	if cfg.Logger == nil {
		logs := &Buffer{}
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("the runner's log:\n%s", logs)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	r, err := runner.New(ctx, nc, chain, cfg, opts...)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				t.Error(err)
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// Buffer is a log sink safe for concurrent use.
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
