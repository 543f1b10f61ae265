package service

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/guardstream/guardstream/client"
	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/embedded"
	"github.com/guardstream/guardstream/internal/natstest"
	"github.com/guardstream/guardstream/internal/runner"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/processors/processortest"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func get(url string) (int, string, error) {
	resp, err := http.Get(url)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// waitFor polls url until it answers code.
func waitFor(t *testing.T, url string, code int) string {
	t.Helper()
	var body string
	natstest.Eventually(t, 15*time.Second, func() error {
		got, b, err := get(url)
		if err != nil {
			return err
		}
		if body = b; got != code {
			return fmt.Errorf("%s answered %d %q, want %d", url, got, b, code)
		}
		return nil
	})
	return body
}

func testConfig(url string) Config {
	sc, oc := streams.DefaultConfig(), objectstore.DefaultConfig()
	sc.Partitions = 2
	return Config{NATSURL: url, Streams: sc, Outputs: oc, Runner: runner.DefaultConfig(2), Policy: guard.DefaultPolicy(), HTTP: "127.0.0.1:0"}
}

// TestHTTPEndpoints runs guard-consumer against a server it does not own,
// guards a call, reads the endpoints, then takes the server away and
// brings it back: /readyz follows.
func TestHTTPEndpoints(t *testing.T) {
	dir := t.TempDir()
	srv, err := embedded.Start(embedded.Options{Host: "127.0.0.1", Port: -1, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	addr := srv.Addr().(*net.TCPAddr)
	svc, err := Start(context.Background(), testConfig(srv.ClientURL()))
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + svc.HTTPAddr()
	t.Logf("guard-consumer on %s serves %s", srv.ClientURL(), base)
	waitFor(t, base+"/livez", 200)
	waitFor(t, base+"/readyz", 200)

	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	c, err := client.New(nc, "acme", client.WithVerdictTimeout(5*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Start(context.Background(), "metrics-1", client.RunSpec{})
	if err != nil {
		t.Fatal(err)
	}
	if v, err := r.Call(context.Background(), client.Call{Tool: "ls", Args: `{}`}); err != nil || v.Kind != event.Allow {
		t.Fatalf("call: %v, %v", v.Kind, err)
	}
	r.Close()

	_, page, err := get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`guardstream_consumer_pending{partition="0"} `,
		`guardstream_consumer_ack_pending{partition="1"} `,
		`guardstream_consumer_info_up 1`,
		`guardstream_partitions_owned `,
		`guardstream_partitions_recovering `,
		`guardstream_events_total{kind="call"} `,
		`guardstream_decisions_total{kind="allow",reason="none"} `,
		`guardstream_batch_duration_seconds_bucket{le="0.0005"} `,
		`go_goroutines `,
		`process_resident_memory_bytes `,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("/metrics has no %q", want)
		}
	}
	if strings.Contains(page, "metrics-1") || strings.Contains(page, "acme") {
		t.Error("/metrics names a run or a tenant")
	}
	t.Logf("/metrics: %d lines", strings.Count(page, "\n"))

	srv.Shutdown()
	srv.WaitForShutdown()
	body := waitFor(t, base+"/readyz", 503)
	t.Logf("server down: /readyz %q", strings.TrimSpace(body))
	if !strings.Contains(body, "NATS unreachable") {
		t.Errorf("/readyz with the server down says %q, want NATS unreachable", body)
	}
	waitFor(t, base+"/livez", 200)

	start := time.Now()
	srv, err = embedded.Start(embedded.Options{Host: "127.0.0.1", Port: addr.Port, StoreDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Shutdown(); srv.WaitForShutdown() }()
	waitFor(t, base+"/readyz", 200)
	t.Logf("server back: /readyz 200 after %v", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	if err := svc.Close(); err != nil {
		t.Error(err)
	}
	t.Logf("closed in %v", time.Since(start).Round(time.Millisecond))
}

// TestReadyOnceClaimed restarts guard-consumer as after a crash: a first
// instance stored checkpoints and stopped; since, events arrived in both
// partitions, and were delivered to a pull that is gone, whose pins the
// server still holds. The new instance's /readyz says it is not ready
// until it has taken both partitions and recovered them, and its
// checkpoint age counts from the checkpoints the first one stored.
func TestReadyOnceClaimed(t *testing.T) {
	ctx := context.Background()
	srv := natstest.RunServer(t, "")
	_, js := natstest.Connect(t, srv)
	cfg := testConfig(srv.ClientURL())
	cfg.Runner.CheckpointInterval = time.Hour // only the first instance's stop checkpoints
	// What was delivered to the pull that is gone comes back after the ack
	// wait, and only then does the server pin the partition anew.
	cfg.Runner.AckWait, cfg.Runner.PublishTimeout = 2*time.Second, time.Second
	runs := make([]*processortest.History, 8) // their ids hash to both partitions
	call := func() {
		for k, h := range runs {
			if h == nil {
				h = processortest.NewHistory("acme", fmt.Sprintf("run-%d", k))
				runs[k] = h
				natstest.PublishEvent(t, js, h.Events()[0])
			}
			h.Call("ls", fmt.Sprintf(`{"n":%d}`, h.Seq()))
			natstest.PublishEvent(t, js, h.Events()[len(h.Events())-1])
		}
	}

	first, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	call()
	natstest.Settle(t, js, 2, 15*time.Second)
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, streams.RunsBucket)
	if err != nil {
		t.Fatal(err)
	}
	for p := range 2 {
		if _, err := kv.Get(ctx, streams.CheckpointKey(p)); err != nil {
			t.Fatalf("partition %d has no checkpoint after the first instance stopped: %v", p, err)
		}
	}
	stopped := time.Now()
	time.Sleep(1500 * time.Millisecond)
	call()
	for p := range 2 { // a pull takes the new events and is gone: its pin stays
		c, err := js.Consumer(ctx, streams.EventStream, streams.ConsumerName(p))
		if err != nil {
			t.Fatal(err)
		}
		got := make(chan struct{}, 64)
		cc, err := c.Consume(func(jetstream.Msg) { got <- struct{}{} }, jetstream.PullPriorityGroup(streams.PriorityGroup))
		if err != nil {
			t.Fatal(err)
		}
		<-got
		cc.Stop()
	}

	second, err := Start(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer second.Close()
	base := "http://" + second.HTTPAddr()
	start := time.Now()
	var seen []string
	natstest.Eventually(t, 20*time.Second, func() error {
		code, body, err := get(base + "/readyz")
		if err != nil {
			return err
		}
		if body = strings.TrimSpace(body); len(seen) == 0 || !strings.HasSuffix(seen[len(seen)-1], body) {
			seen = append(seen, fmt.Sprintf("+%v %d %s", time.Since(start).Round(time.Millisecond), code, body))
		}
		if code != 200 {
			return fmt.Errorf("/readyz %d %s", code, body)
		}
		return nil
	})
	_, page, err := get(base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range seen {
		t.Logf("/readyz %s", s)
	}
	if !strings.Contains(seen[0], "503 not ready: claiming the partitions") {
		t.Errorf("/readyz answered %q first, want not ready while the partitions are claimed", seen[0])
	}
	for _, want := range []string{"guardstream_partitions_owned 2", "guardstream_partitions_recovering 0",
		`guardstream_inflight_limit{partition="0"} 1024`, `guardstream_inflight_limit{partition="1"} 1024`} {
		if !strings.Contains(page, want+"\n") {
			t.Errorf("ready, but /metrics has no %q", want)
		}
	}
	for p := range 2 {
		series := fmt.Sprintf(`guardstream_checkpoint_age_seconds{partition="%d"} `, p)
		_, v, ok := strings.Cut(page, series)
		v, _, _ = strings.Cut(v, "\n")
		age, err := strconv.ParseFloat(v, 64)
		t.Logf("checkpoint age of partition %d when ready: %s (stored %v before)", p, v, time.Since(stopped).Round(time.Millisecond))
		if !ok || err != nil || age < 1.5 {
			t.Errorf("checkpoint age of partition %d: %q, want the age of the first instance's checkpoint, over 1.5 s", p, v)
		}
	}
}
