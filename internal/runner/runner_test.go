package runner_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// start runs a runner against the server behind nc until the test ends.
func start(t *testing.T, nc *nats.Conn, partitions int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cfg := runner.DefaultConfig(partitions)
	cfg.AckWait = 2 * time.Second
	cfg.PublishTimeout = time.Second
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	})
}

func publish(t *testing.T, js jetstream.JetStream, ev event.Event) {
	t.Helper()
	publishRaw(t, js, mustSubject(t, ev), event.AppendEvent(nil, &ev))
}

func publishRaw(t *testing.T, js jetstream.JetStream, subj string, data []byte) {
	t.Helper()
	if _, err := js.Publish(context.Background(), subj, data); err != nil {
		t.Fatal(err)
	}
}

func TestLoopingRun(t *testing.T) {
	s := natstest.RunServer(t, "")
	nc, js := natstest.Connect(t, s)
	natstest.Provision(t, js, nil)
	start(t, nc, 4)

	h := processortest.NewHistory("acme", "looper")
	for range 5 {
		h.Call("read_file", `{"path":"a.go"}`).Result(false, "x")
	}
	for _, ev := range h.Events() {
		publish(t, js, ev)
	}
	msgs := natstest.WaitMessages(t, js, streams.ControlStream, 11) // 5 verdicts, 1 advice, 4 outputs, the late result's stale
	var kinds []string
	for _, m := range msgs {
		var d event.Decision
		if err := event.DecodeDecision(m.Data, &d); err != nil {
			t.Fatal(err)
		}
		kinds = append(kinds, fmt.Sprintf("%s@%d", d.Kind, d.Seq))
	}
	want := "[allow@2 output@3 allow@4 output@5 advise@6 allow@6 output@7 allow@8 output@9 stop@10 stale@11]"
	if fmt.Sprint(kinds) != want {
		t.Errorf("decisions %v, want %s", kinds, want)
	}
}

// lockedBuffer is a log sink safe for the runner's partitions.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestBackpressure: acks take longer to come back than nats.go waits for
// room among the outstanding publishes: the partitions wait for the server
// instead of failing, and every decision is published once.
func TestBackpressure(t *testing.T) {
	s := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, s)
	px := newProxy(t, s.Addr().String())
	nc, err := nats.Connect(px.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var logs lockedBuffer
	cfg := runner.DefaultConfig(natstest.Provision(t, js, nil).Partitions)
	cfg.MaxPending = 4
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), cfg)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- r.Run(ctx) }()

	px.setDelay(300 * time.Millisecond) // past nats.go's stall wait (200ms), within the publish timeout
	const runs, calls = 2, 6
	for i := range runs {
		h := processortest.NewHistory("acme", fmt.Sprintf("r%d", i))
		for k := range calls {
			tool := []string{"read_file", "grep", "list_dir"}[k%3]
			h.Call(tool, fmt.Sprintf(`{"path":"f%d.go"}`, k)).Result(false, "x")
		}
		for _, ev := range h.Events() {
			if _, err := js.PublishAsync(mustSubject(t, ev), event.AppendEvent(nil, &ev)); err != nil {
				t.Fatal(err)
			}
		}
	}
	<-js.PublishAsyncComplete()
	msgs := natstest.WaitMessages(t, js, streams.ControlStream, 2*runs*calls) // a verdict and an output per call
	ids := map[string]bool{}
	for _, m := range msgs {
		id := m.Header.Get(jetstream.MsgIDHeader)
		if ids[id] {
			t.Errorf("decision %s published twice", id)
		}
		ids[id] = true
	}
	px.setDelay(0)
	cancel()
	if err := <-done; err != nil {
		t.Error(err)
	}
	if strings.Contains(logs.String(), "partition failed") {
		t.Errorf("a partition failed under backpressure:\n%s", logs.String())
	}
}

func mustSubject(t *testing.T, ev event.Event) string {
	t.Helper()
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		t.Fatal(err)
	}
	return subj
}
