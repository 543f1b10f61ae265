package runner_test

import (
	"context"
	"fmt"
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
	subj, err := streams.EventSubject(ev.Tenant, ev.Run, ev.Kind)
	if err != nil {
		t.Fatal(err)
	}
	publishRaw(t, js, subj, event.AppendEvent(nil, &ev))
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
