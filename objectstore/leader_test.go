package objectstore

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// The leader's answer is the direct get's, headers and all, and a part
// that is not there is jetstream.ErrMsgNotFound from both.
func TestLeaderReadsWhatDirectGetsRead(t *testing.T) {
	_, js := natstest.Connect(t, natstest.RunServer(t, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := Provision(ctx, js, DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	ref, err := st.Put(ctx, "acme", bytes.Repeat([]byte("y"), 600<<10))
	if err != nil {
		t.Fatal(err)
	}
	h, err := st.head(ctx, "acme", ref.Digest)
	if err != nil || h.parts < 2 {
		t.Fatalf("the output has %d parts (%v); the test wants several", h.parts, err)
	}
	for part := range h.parts {
		subj, _ := Subject("acme", ref.Digest, part)
		direct, err := st.stream.GetLastMsgForSubject(ctx, subj)
		if err != nil {
			t.Fatal(err)
		}
		leader, err := streams.LeaderGet(ctx, st.js.Conn(), Stream, streams.LeaderRequest{LastFor: subj})
		if err != nil {
			t.Fatal(err)
		}
		// A direct get adds the Nats-* headers; the store reads its own.
		if leader.Subject != direct.Subject || leader.Sequence != direct.Sequence || !bytes.Equal(leader.Data, direct.Data) ||
			!leader.Time.Equal(direct.Time) || leader.Header.Get(HeaderSize) != direct.Header.Get(HeaderSize) ||
			leader.Header.Get(HeaderParts) != direct.Header.Get(HeaderParts) {
			t.Errorf("part %d: the leader read %s #%d, %d bytes, headers %v; the direct get %s #%d, %d bytes, headers %v", part,
				leader.Subject, leader.Sequence, len(leader.Data), leader.Header, direct.Subject, direct.Sequence, len(direct.Data), direct.Header)
		}
	}
	missing, _ := Subject("acme", ref.Digest, 9)
	if _, err := streams.LeaderGet(ctx, st.js.Conn(), Stream, streams.LeaderRequest{LastFor: missing}); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("a missing part from the leader: %v, want ErrMsgNotFound", err)
	}
	if _, err := st.last(ctx, missing); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Errorf("a missing part: %v, want ErrMsgNotFound", err)
	}
}
