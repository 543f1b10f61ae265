package objectstore_test

import (
	"errors"
	"testing"

	"github.com/guardstream/guardstream/objectstore"
)

// A full store drops the oldest parts, whoever stored them: another
// tenant's uploads never fail for want of space, an output that lost a
// part reads as not found, and Put stores it again.
func TestFullStoreDropsTheOldest(t *testing.T) {
	st, js := setup(t, func(c *objectstore.Config) {
		c.Memory, c.MaxBytes, c.MaxOutputBytes, c.ChunkSize = true, 1<<20, 256<<10, 64<<10
	})
	ctx := ctxT(t)
	victim := randomBytes(100<<10, 1) // 2 parts
	ref, err := st.Put(ctx, "victim", victim)
	if err != nil {
		t.Fatal(err)
	}
	// A flood of another tenant's outputs, 2 MiB through a 1 MiB store.
	for i := range 16 {
		if _, err := objectstore.Upload(ctx, js, "flood", randomBytes(128<<10, uint64(100+i)), objectstore.DefaultConfig()); err != nil {
			t.Fatalf("upload %d into a full store: %v", i, err)
		}
	}
	if _, err := st.Get(ctx, "victim", ref); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("the oldest output after the flood: %v, want ErrNotFound", err)
	}
	if _, err := st.Put(ctx, "victim", victim); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, "victim", ref); err != nil || len(got) != len(victim) {
		t.Fatalf("after a second Put: %d bytes, %v", len(got), err)
	}
}

// Put stores again an output whose first part is there but whose last,
// the oldest, was dropped.
func TestPutRepairsAnOutputMissingItsLastPart(t *testing.T) {
	st, js := setup(t, func(c *objectstore.Config) { c.Memory, c.ChunkSize = true, 64<<10 })
	ctx := ctxT(t)
	data := randomBytes(150<<10, 3) // parts 0, 1, 2
	ref, err := st.Put(ctx, "acme", data)
	if err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, objectstore.Stream)
	if err != nil {
		t.Fatal(err)
	}
	last, _ := objectstore.Subject("acme", ref.Digest, 2)
	m, err := s.GetLastMsgForSubject(ctx, last)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, m.Sequence); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Get(ctx, "acme", ref); !errors.Is(err, objectstore.ErrNotFound) {
		t.Fatalf("Get without the last part: %v, want ErrNotFound", err)
	}
	if _, err := st.Put(ctx, "acme", data); err != nil {
		t.Fatal(err)
	}
	if got, err := st.Get(ctx, "acme", ref); err != nil || len(got) != len(data) {
		t.Fatalf("after Put: %d bytes, %v; want the output stored again", len(got), err)
	}
}
