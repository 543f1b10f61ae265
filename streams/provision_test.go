package streams_test

import (
	"context"
	"errors"
	"testing"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
)

func TestProvisionIsIdempotent(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx := context.Background()
	cfg := streams.DefaultConfig()
	cfg.Partitions = 8
	for range 3 {
		if err := streams.Provision(ctx, js, cfg); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{streams.EventStream, streams.ControlStream, streams.DeadLetterStream, "KV_" + streams.RunsBucket} {
		if _, err := js.Stream(ctx, name); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}

	// Every event of a run lands in one partition, given by the transform.
	subj, _ := streams.EventSubject("acme", "run-1", event.KindCall)
	ack, err := js.Publish(ctx, subj, []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	es, _ := js.Stream(ctx, streams.EventStream)
	m, err := es.GetMsg(ctx, ack.Sequence)
	if err != nil {
		t.Fatal(err)
	}
	st, err := streams.ParseStored(m.Subject)
	if err != nil || st.Tenant != "acme" || st.Run != "run-1" || st.Kind != "call" || st.Partition >= 8 {
		t.Fatalf("stored as %q: %+v, %v", m.Subject, st, err)
	}
	for _, k := range []event.Kind{event.KindRunStart, event.KindResult, event.KindHeartbeat} {
		subj, _ := streams.EventSubject("acme", "run-1", k)
		ack, err := js.Publish(ctx, subj, []byte("x"))
		if err != nil {
			t.Fatal(err)
		}
		m, _ := es.GetMsg(ctx, ack.Sequence)
		if got, _ := streams.ParseStored(m.Subject); got.Partition != st.Partition {
			t.Errorf("%s went to partition %d, the run's calls to %d", k, got.Partition, st.Partition)
		}
	}

	cfg.Partitions = 4
	if err := streams.Provision(ctx, js, cfg); !errors.Is(err, streams.ErrPartitionsChanged) {
		t.Errorf("changing the partition count: %v, want ErrPartitionsChanged", err)
	}
}
