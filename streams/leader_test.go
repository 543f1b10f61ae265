package streams_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// TestLeaderGetAnswersEachRequest checks LeaderGet's three kinds of request
// against what was stored, a message that is not there, and a stream that
// is not there.
func TestLeaderGetAnswersEachRequest(t *testing.T) {
	nc, js := natstest.Connect(t, natstest.RunServer(t, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "LEADER", Subjects: []string{"l.>"}}); err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct{ subj, data, hdr string }{{"l.a", "a1", "x"}, {"l.b", "b1", ""}, {"l.a", "a2", "y"}} {
		msg := nats.NewMsg(m.subj)
		msg.Data = []byte(m.data)
		if m.hdr != "" {
			msg.Header.Set("H", m.hdr)
		}
		if _, err := js.PublishMsg(ctx, msg); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		req      streams.LeaderRequest
		seq      uint64
		data, hd string
	}{
		{streams.LeaderRequest{Seq: 2}, 2, "b1", ""},
		{streams.LeaderRequest{Seq: 2, NextFor: "l.a"}, 3, "a2", "y"},
		{streams.LeaderRequest{LastFor: "l.a"}, 3, "a2", "y"},
		{streams.LeaderRequest{Seq: 1, NextFor: "l.*"}, 1, "a1", "x"},
	} {
		m, err := streams.LeaderGet(ctx, nc, "LEADER", c.req)
		if err != nil {
			t.Errorf("%+v: %v", c.req, err)
			continue
		}
		if m.Sequence != c.seq || string(m.Data) != c.data || m.Header.Get("H") != c.hd || m.Time.IsZero() {
			t.Errorf("%+v: #%d %q header %q at %v, want #%d %q header %q", c.req, m.Sequence, m.Data, m.Header.Get("H"), m.Time, c.seq, c.data, c.hd)
		}
	}
	for _, req := range []streams.LeaderRequest{{Seq: 4}, {Seq: 4, NextFor: "l.a"}, {LastFor: "l.c"}} {
		if _, err := streams.LeaderGet(ctx, nc, "LEADER", req); !errors.Is(err, jetstream.ErrMsgNotFound) {
			t.Errorf("%+v: %v, want ErrMsgNotFound", req, err)
		}
	}
	_, err := streams.LeaderGet(ctx, nc, "NOSUCH", streams.LeaderRequest{Seq: 1})
	var apiErr *jetstream.APIError
	if !errors.As(err, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamNotFound {
		t.Errorf("a stream that is not there: %v, want the server's stream-not-found error", err)
	}
}
