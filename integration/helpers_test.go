package integration

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// system is a server with provisioned streams and output store.
type system struct {
	t       *testing.T
	server  *server.Server
	nc      *nats.Conn
	js      jetstream.JetStream
	cfg     streams.Config
	outputs *objectstore.Store
}

func newSystem(t *testing.T, partitions int) *system {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := streams.DefaultConfig()
	cfg.Partitions = partitions
	natstest.Provision(t, js, &cfg)
	outputs, err := objectstore.Provision(context.Background(), js, objectstore.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	return &system{t: t, server: s, nc: nc, js: js, cfg: cfg, outputs: outputs}
}

// startGuard runs a guard-consumer runner with policy p until the returned
// stop function is called or the test ends.
func (s *system) startGuard(p guard.Policy) (stop func()) {
	s.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := runner.DefaultConfig(s.cfg.Partitions)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	r, err := runner.New(ctx, s.nc, guard.Chain(p), cfg, runner.WithOutputs(s.outputs))
	if err != nil {
		s.t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		if err := <-done; err != nil {
			s.t.Error(err)
		}
	}
	s.t.Cleanup(stop)
	return stop
}

func (s *system) client(tenant string, opts ...client.Option) *client.Client {
	s.t.Helper()
	c, err := client.New(s.nc, tenant, opts...)
	if err != nil {
		s.t.Fatal(err)
	}
	return c
}

// msgs returns the messages of stream, waiting until it holds want.
func (s *system) msgs(stream string, want int) []*jetstream.RawStreamMsg {
	s.t.Helper()
	return natstest.WaitMessages(s.t, s.js, stream, want)
}

// all returns every message stream holds now, in order.
func (s *system) all(stream string) []*jetstream.RawStreamMsg {
	s.t.Helper()
	return natstest.Messages(s.t, s.js, stream)
}

// settle waits until every partition consumer has acked everything in
// AGENT_EVENTS.
func (s *system) settle() {
	s.t.Helper()
	ctx := context.Background()
	natstest.Eventually(s.t, 15*time.Second, func() error {
		for p := range s.cfg.Partitions {
			c, err := s.js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
			if err != nil {
				return err
			}
			info, err := c.Info(ctx)
			if err != nil {
				return err
			}
			if info.NumPending > 0 || info.NumAckPending > 0 {
				return fmt.Errorf("partition %d: %d pending, %d unacked", p, info.NumPending, info.NumAckPending)
			}
		}
		return nil
	})
}

func decode(t *testing.T, m *jetstream.RawStreamMsg) event.Decision {
	t.Helper()
	var d event.Decision
	if err := event.DecodeDecision(m.Data, &d); err != nil {
		t.Fatalf("decision at %d on %s: %v", m.Sequence, m.Subject, err)
	}
	return d
}

// publishRaw publishes data as is, as a misbehaving agent would.
func (s *system) publishRaw(subject string, data []byte) {
	s.t.Helper()
	if _, err := s.js.Publish(context.Background(), subject, data); err != nil {
		s.t.Fatal(err)
	}
}
