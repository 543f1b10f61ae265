package runner

import (
	"context"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// TestReaderNeverReturnsAHole: a reader whose queue is too small for an
// answer (here 4 messages for 200) fails the read with errReaderBehind
// instead of returning the batch with the dropped messages missing; one
// sized for the answer reads it whole every time.
func TestReaderNeverReturnsAHole(t *testing.T) {
	const n = 200
	s := natstest.RunServer(t, t.TempDir())
	nc, js := natstest.Connect(t, s)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "READ", Subjects: []string{"read.>"}, AllowDirect: true}); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := js.Publish(ctx, "read."+strconv.Itoa(i), []byte("event")); err != nil {
			t.Fatal(err)
		}
	}

	whole := func(recs []record) bool {
		for i, r := range recs {
			if r.seq != uint64(i+1) {
				return false
			}
		}
		return len(recs) == n
	}
	small, err := newReader(nc, "READ", 1, 200*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer small.close()
	behind := 0
	for i := 0; i < 50 && behind < 3; i++ {
		recs, _, _, err := small.scan(ctx, 1, "read.", n, nil)
		switch {
		case errors.Is(err, errReaderBehind):
			behind++
		case err != nil:
			t.Fatalf("scan with a queue too small: %v; want errReaderBehind or the whole batch", err)
		case !whole(recs):
			t.Fatalf("scan with a queue too small returned %d records without an error; want all %d in order", len(recs), n)
		}
	}
	if behind == 0 {
		t.Fatal("a queue of 4 never overflowed on answers of 201 messages in 50 reads")
	}

	sized, err := newReader(nc, "READ", n, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer sized.close()
	for range 10 {
		recs, last, pending, err := sized.scan(ctx, 1, "read.", n, nil)
		if err != nil || !whole(recs) || last != n || pending != 0 {
			t.Fatalf("scan with a queue sized for the answer: %d records, last %d, pending %d, %v; want %d, %d, 0, nil", len(recs), last, pending, err, n, n)
		}
	}
}
