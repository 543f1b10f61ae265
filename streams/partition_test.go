package streams_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// TestLonePartitionTakesEveryEvent checks that a lone partition's consumer
// takes AGENT_EVENTS unfiltered (">", which the file store scans in order
// instead of walking a block's subjects for each event), that it gets every
// tenant's and run's events, and that a change to more partitions gives it
// its filter back.
func TestLonePartitionTakesEveryEvent(t *testing.T) {
	_, js := natstest.Connect(t, natstest.RunServer(t, ""))
	cfg := streams.DefaultConfig()
	cfg.Partitions = 1
	natstest.Provision(t, js, &cfg)
	pc := streams.PartitionConsumer{Partitions: 1, AckWait: 30 * time.Second, MaxAckPending: 1024, PinnedTTL: 5 * time.Second}
	want := pc.Config(0, 0)
	if want.FilterSubject != ">" {
		t.Fatalf("a lone partition's filter is %q, want >", want.FilterSubject)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := js.CreateConsumer(ctx, streams.EventStream, want)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range [][2]string{{"acme", "r1"}, {"acme", "r2"}, {"globex", "r1"}} {
		natstest.PublishEvent(t, js, event.Event{V: event.Version, Kind: event.KindStep, Tenant: id[0], Run: id[1], Seq: int64(i + 1), TS: 1})
	}
	// The server counts a consumer's pending events on a goroutine of its
	// own after it stores them, so the count reaches 3 a little after the
	// last publish is acknowledged.
	var info *jetstream.ConsumerInfo
	natstest.Eventually(t, 5*time.Second, func() error {
		var err error
		if info, err = c.Info(ctx); err != nil {
			return err
		}
		if info.NumPending != 3 {
			return fmt.Errorf("the lone partition's consumer has %d events pending, want all 3", info.NumPending)
		}
		return nil
	})
	if !streams.Covers(info.Config, want) {
		t.Errorf("the server's copy does not cover the lone partition's consumer:\nhave %+v\nwant %+v", info.Config, want)
	}
	pc.Partitions = 2
	if more := pc.Config(0, 0); more.FilterSubject != streams.PartitionFilter(0) || streams.Covers(info.Config, more) {
		t.Errorf("with 2 partitions partition 0's filter is %q, and the lone partition's consumer covers it: %v",
			more.FilterSubject, streams.Covers(info.Config, more))
	}
}
