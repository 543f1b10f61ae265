package streams_test

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Provisioning what is already provisioned sends the server no create or
// update: on a cluster each is a meta-layer proposal, slow on slow
// storage. A changed setting is still applied.
// It holds on a cluster too, where the server fills in more of each
// configuration.
func TestProvisionAgainSendsNoUpdates(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		nc, js := natstest.Connect(t, natstest.RunServer(t, ""))
		provisionAgain(t, nc, js, 1)
	})
	t.Run("cluster", func(t *testing.T) {
		nc := natstest.RunCluster(t, 3).Connect(t.Name())
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		provisionAgain(t, nc, js, 3)
	})
}

func provisionAgain(t *testing.T, nc *nats.Conn, js jetstream.JetStream, replicas int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var changes atomic.Int64
	for _, subj := range []string{"$JS.API.STREAM.CREATE.>", "$JS.API.STREAM.UPDATE.>", "$JS.API.CONSUMER.CREATE.>", "$JS.API.CONSUMER.DURABLE.CREATE.>"} {
		sub, err := nc.Subscribe(subj, func(*nats.Msg) { changes.Add(1) })
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
	}
	cfg, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	cfg.Replicas, oc.Replicas = replicas, replicas
	provision := func() int64 {
		t.Helper()
		before := changes.Load()
		if err := streams.Provision(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := objectstore.Provision(ctx, js, oc); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		return changes.Load() - before
	}
	if n := provision(); n != 6 {
		t.Errorf("first provisioning: %d creates or updates, want 6 (5 streams and the bucket)", n)
	}
	if n := provision(); n != 0 {
		t.Errorf("provisioning again: %d creates or updates, want none", n)
	}
	cfg.ControlMaxAge = 3 * time.Hour
	if n := provision(); n != 1 {
		t.Errorf("provisioning with GUARD_CONTROL's max age changed: %d updates, want 1", n)
	}
	if s, _ := js.Stream(ctx, streams.ControlStream); s.CachedInfo().Config.MaxAge != 3*time.Hour {
		t.Errorf("GUARD_CONTROL's max age is %v, want 3h", s.CachedInfo().Config.MaxAge)
	}
}

func TestCoversConsumer(t *testing.T) {
	t.Run("server", func(t *testing.T) {
		_, js := natstest.Connect(t, natstest.RunServer(t, ""))
		coversConsumer(t, js, 1)
	})
	t.Run("cluster", func(t *testing.T) {
		js, err := jetstream.New(natstest.RunCluster(t, 3).Connect(t.Name()))
		if err != nil {
			t.Fatal(err)
		}
		coversConsumer(t, js, 3)
	})
}

func coversConsumer(t *testing.T, js jetstream.JetStream, replicas int) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cfg := streams.DefaultConfig()
	cfg.Replicas = replicas
	if err := streams.Provision(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	pc := streams.PartitionConsumer{AckWait: 30 * time.Second, MaxAckPending: 1024, PinnedTTL: 5 * time.Second}
	want := pc.Config(3, 0)
	c, err := js.CreateConsumer(ctx, streams.EventStream, want)
	if err != nil {
		t.Fatal(err)
	}
	have := c.CachedInfo().Config
	if !streams.Covers(have, want) {
		t.Errorf("the server's copy of a consumer config does not cover it:\nhave %+v\nwant %+v", have, want)
	}
	for name, change := range map[string]func(*jetstream.ConsumerConfig){
		"ack wait":    func(c *jetstream.ConsumerConfig) { c.AckWait = time.Minute },
		"max pending": func(c *jetstream.ConsumerConfig) { c.MaxAckPending = 2048 },
		"groups":      func(c *jetstream.ConsumerConfig) { c.PriorityGroups = []string{"other"} },
		"metadata":    func(c *jetstream.ConsumerConfig) { c.Metadata = map[string]string{"k": "v"} },
		"filter":      func(c *jetstream.ConsumerConfig) { c.FilterSubject = "agent.4.>" },
		"description": func(c *jetstream.ConsumerConfig) { c.Description = "other" },
		"pinned ttl":  func(c *jetstream.ConsumerConfig) { c.PinnedTTL = time.Second },
		"deliver start": func(c *jetstream.ConsumerConfig) {
			c.DeliverPolicy, c.OptStartSeq = jetstream.DeliverByStartSequencePolicy, 9
		},
	} {
		w := want
		change(&w)
		if streams.Covers(have, w) {
			t.Errorf("%s changed, and the old config still covers the new", name)
		}
	}
}
