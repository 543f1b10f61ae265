package runner

import (
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// TestFreshWaitsForForgottenWrites: once a tenure has forgotten a run it
// wrote, a read of run state is taken only from a replica whose stream
// reaches that write. Here the stream is one short of it: the read asks
// again until a later write makes it long enough, and not before.
func TestFreshWaitsForForgottenWrites(t *testing.T) {
	s := natstest.RunServer(t, t.TempDir())
	nc, js := natstest.Connect(t, s)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KV_T", Subjects: []string{"$KV.T.>"}, AllowDirect: true}); err != nil {
		t.Fatal(err)
	}
	put := func(subject string) uint64 {
		ack, err := js.Publish(ctx, subject, []byte("state"))
		if err != nil {
			t.Fatal(err)
		}
		return ack.Sequence
	}
	owner := put("$KV.T.owner")
	put("$KV.T.r1")
	rd, err := newReader(nc, "KV_T", 16, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer rd.close()
	rs := runs{store: rd, fence: fence{subject: "$KV.T.owner", rev: owner}}

	if _, err := rs.fresh(ctx, []string{"$KV.T.r1", rs.fence.subject}); err != nil {
		t.Fatalf("a read with nothing forgotten: %v", err)
	}
	rs.evicted = 3 // a write the stream does not reach yet
	wrote := make(chan time.Time, 1)
	go func() {
		time.Sleep(100 * time.Millisecond)
		put("$KV.T.r2")
		wrote <- time.Now()
	}()
	got, err := rs.fresh(ctx, []string{"$KV.T.r1", rs.fence.subject})
	returned := time.Now()
	if err != nil || len(got) != 2 {
		t.Fatalf("the read once the stream reached revision 3: %d records, %v", len(got), err)
	}
	if at := <-wrote; returned.Before(at) {
		t.Errorf("the read returned %v before the stream reached the forgotten write", at.Sub(returned))
	}
}
