package natstest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// RunServer starts a JetStream server on a free loopback port with its store
// in dir (a fresh t.TempDir when dir is empty); it is shut down when the
// test ends.
func RunServer(t testing.TB, dir string) *server.Server {
	t.Helper()
	if dir == "" {
		dir = t.TempDir()
	}
	s, err := embedded.Start(embedded.Options{Name: "test", Host: "127.0.0.1", Port: -1, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// Connect connects to s, with opts after its own (credentials, for a
// server that asks for them); the connection closes when the test ends.
func Connect(t testing.TB, s *server.Server, opts ...nats.Option) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), append([]nats.Option{nats.MaxReconnects(-1), nats.ReconnectWait(50 * time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return nc, js
}

// Provision provisions guardstream's streams on js with c, or with a
// small default (4 partitions, memory storage) when c is nil.
func Provision(t testing.TB, js jetstream.JetStream, c *streams.Config) streams.Config {
	t.Helper()
	cfg := streams.DefaultConfig()
	cfg.Partitions, cfg.Memory = 4, true
	if c != nil {
		cfg = *c
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := streams.Provision(ctx, js, cfg); err != nil {
		t.Fatal(err)
	}
	return cfg
}

// Eventually calls f until it returns nil, failing the test with f's last
// error if that does not happen within timeout.
func Eventually(t testing.TB, timeout time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not true within %v: %v", timeout, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Messages returns every message stream holds now, in order.
func Messages(t testing.TB, js jetstream.JetStream, stream string) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx := context.Background()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []*jetstream.RawStreamMsg
	for seq := info.State.FirstSeq; seq <= info.State.LastSeq && seq > 0; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if errors.Is(err, jetstream.ErrMsgNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// SubjectCount returns how many messages stream holds on the subjects
// that match filter.
func SubjectCount(t testing.TB, js jetstream.JetStream, stream, filter string) uint64 {
	t.Helper()
	ctx := context.Background()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx, jetstream.WithSubjectFilter(filter))
	if err != nil {
		t.Fatal(err)
	}
	var n uint64
	for _, c := range info.State.Subjects {
		n += c
	}
	return n
}

// WaitMessages waits until stream holds want messages and returns them.
func WaitMessages(t testing.TB, js jetstream.JetStream, stream string, want int) []*jetstream.RawStreamMsg {
	t.Helper()
	ctx := context.Background()
	st, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	Eventually(t, 15*time.Second, func() error {
		info, err := st.Info(ctx)
		if err != nil {
			return err
		}
		if got := int(info.State.Msgs); got != want {
			return fmt.Errorf("%s holds %d messages, want %d", stream, got, want)
		}
		return nil
	})
	return Messages(t, js, stream)
}

// PublishEvent publishes ev as an agent would, and waits for the server
// to store it.
func PublishEvent(t testing.TB, js jetstream.JetStream, ev event.Event) {
	t.Helper()
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(context.Background(), subj, event.AppendEvent(nil, &ev)); err != nil {
		t.Fatal(err)
	}
}
