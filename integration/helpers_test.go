package integration

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/internal/runnertest"
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
	return newSystemWith(t, func(c *streams.Config) { c.Partitions = partitions })
}

// newSystemWith is newSystem with the default stream configuration
// changed by mod.
func newSystemWith(t *testing.T, mod func(*streams.Config)) *system {
	t.Helper()
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	cfg := streams.DefaultConfig()
	mod(&cfg)
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
	return startRunner(s.t, s.nc, s.cfg.Partitions, s.outputs, p)
}

// startRunner runs a runner with policy p on nc until the returned stop
// function is called or the test ends.
func startRunner(t *testing.T, nc *nats.Conn, partitions int, outputs *objectstore.Store, p guard.Policy) (stop func()) {
	t.Helper()
	cfg := runner.DefaultConfig(partitions)
	cfg.AckWait, cfg.PublishTimeout = 2*time.Second, time.Second
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	api, err := admin.ServeAgents(nc, js, outputs, "0.0.0")
	if err != nil {
		t.Fatal(err)
	}
	stopRunner := runnertest.Start(t, nc, guard.Chain(p), cfg, runner.WithOutputs(outputs))
	var once sync.Once
	stop = func() {
		once.Do(func() {
			_ = api.Stop()
			stopRunner()
		})
	}
	t.Cleanup(stop)
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
// AGENT_EVENTS. The bound is generous for the race detector, which slows
// the embedded server several times over.
func (s *system) settle() {
	s.t.Helper()
	natstest.Settle(s.t, s.js, s.cfg.Partitions, time.Minute)
}

// reference returns the control stream of an uninterrupted run of one
// in-process guard over the events in AGENT_EVENTS, on fresh state
// (natstest.Reset): what a run under faults must equal. Every
// guard-consumer must be stopped first.
func (s *system) reference() []natstest.Record {
	s.t.Helper()
	natstest.Reset(s.t, s.js, s.cfg)
	stop := s.startGuard(guard.DefaultPolicy())
	s.settle()
	stop()
	return natstest.Control(s.t, s.js)
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

// skipUnderRace skips a fault test under the race detector. What such a
// test checks runs in guard-consumer processes, built without the
// detector, or in a 3-node cluster; the detector would instrument only the
// embedded servers, slowing them several times over, which on two cores
// turns the tests' time bounds into failures and finds nothing.
func skipUnderRace(t *testing.T) {
	t.Helper()
	if raceDetector {
		t.Skip("a fault test of processes or a cluster: nothing for the race detector to check, and it slows the servers past the test's bounds")
	}
}
