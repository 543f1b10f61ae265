package client_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
)

// startRunner runs guard-consumer's runner with policy p over nc, and the
// agent API the client catches up through, until the returned function, or
// the end of the test, stops them.
func startRunner(t *testing.T, nc *nats.Conn, partitions int, p guard.Policy) (stop func()) {
	t.Helper()
	cfg := runner.DefaultConfig(partitions)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	ctx, cancel := context.WithCancel(context.Background())
	r, err := runner.New(ctx, nc, guard.Chain(p), cfg)
	if err != nil {
		t.Fatal(err)
	}
	api := serveAgentAPI(t, nc)
	stopped := make(chan error, 1)
	go func() { stopped <- r.Run(ctx) }()
	stop = sync.OnceFunc(func() {
		_ = api.Stop()
		cancel()
		if err := <-stopped; err != nil {
			t.Error(err)
		}
	})
	t.Cleanup(stop)
	return stop
}

// guarded starts a server with provisioned streams and a guard-consumer
// with policy p on every partition, and returns a connection to it.
func guarded(t *testing.T, p guard.Policy) *nats.Conn {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := natstest.Provision(t, js, nil)
	startRunner(t, nc, cfg.Partitions, p)
	return nc
}

// serveAgentAPI serves guard-consumer's agent API over nc, which the client
// catches up through after a reconnect; stop it with Stop.
func serveAgentAPI(t *testing.T, nc *nats.Conn) micro.Service {
	t.Helper()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	outputs, err := objectstore.Provision(context.Background(), js, objectstore.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	api, err := admin.ServeAgents(nc, js, outputs, "0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	return api
}

// startRun starts run for tenant acme over nc, with a 10 s verdict
// timeout; the run closes when the test ends.
func startRun(t *testing.T, nc *nats.Conn, run string, spec client.RunSpec) (*client.Client, *client.Run) {
	t.Helper()
	c, err := client.New(nc, "acme", client.WithVerdictTimeout(10*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Start(context.Background(), run, spec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return c, r
}
