package objectstore

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
)

// An output Put again late in its life is stored again, so it outlives the
// runs that link to it.
func TestPutRefreshesAgingOutputs(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Provision(ctx, js, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("x"), 1000)
	ref, err := st.Put(ctx, "acme", data)
	if err != nil {
		t.Fatal(err)
	}
	seq := func() uint64 {
		subj, _ := Subject("acme", ref.Digest, 0)
		m, err := st.stream.GetLastMsgForSubject(ctx, subj)
		if err != nil {
			t.Fatal(err)
		}
		return m.Sequence
	}
	first := seq()
	st.now = func() time.Time { return time.Now().Add(11 * time.Hour) }
	if _, err := st.Put(ctx, "acme", data); err != nil || seq() != first {
		t.Fatalf("a young output was stored again (%v)", err)
	}
	st.now = func() time.Time { return time.Now().Add(13 * time.Hour) }
	if _, err := st.Put(ctx, "acme", data); err != nil || seq() == first {
		t.Fatalf("an output past half its life was not stored again (%v)", err)
	}
	if got, err := st.Get(ctx, "acme", ref); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after the refresh: %v", err)
	}
}
