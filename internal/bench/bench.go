package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/guardstream/guardstream/objectstore"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Report is what a benchmark run measured.
type Report struct {
	Partitions int  `json:"partitions"`
	Payload    int  `json:"payload_bytes"`
	Sync       bool `json:"sync_always"`
	CPUs       int  `json:"cpus"`
	BaseWindow int  `json:"baseline_window"`
	BaseBatch  int  `json:"baseline_batch"`
	// Policy is the guard's policy file or preset; empty is the default.
	Policy string `json:"policy,omitempty"`
	// Rounds are the throughput measurements, in order; Baseline, Guard
	// and Ratio are those of the round with the median ratio, Gain the
	// median of the baseline's gains over the old baseline.
	Rounds   []Round    `json:"rounds"`
	Baseline Throughput `json:"baseline"`
	Guard    Throughput `json:"guard"`
	Ratio    float64    `json:"ratio"`
	Gain     float64    `json:"baseline_gain"`
	// Latency is the interleaved comparisons at each offered load, the
	// last at the guard's saturation.
	Latency []Load `json:"latency"`
	// Scale is the guard's throughput at each number of active runs.
	Scale []Scale `json:"scale"`
	// Failures is what the runner warned about in each phase.
	Failures map[string]Failures `json:"failures"`
	// Seconds is how long the run took.
	Seconds float64 `json:"seconds"`
}

const tenant = "bench"

// Run measures as cfg says, logging progress to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	began := time.Now()
	cfg.log, cfg.warn = log, &warnings{}
	rep := Report{Partitions: cfg.Partitions, Payload: cfg.Payload, Sync: cfg.Sync, CPUs: runtime.NumCPU(), Policy: cfg.Policy,
		BaseWindow: cfg.BaseWindow, BaseBatch: cfg.BaseBatch, Failures: map[string]Failures{}}
	url := cfg.NATSURL
	if url == "" {
		dir := cfg.StoreDir
		if dir == "" {
			tmp, err := os.MkdirTemp("", "guard-bench-")
			if err != nil {
				return rep, err
			}
			defer os.RemoveAll(tmp)
			dir = tmp
		}
		srv, err := startServer(ctx, dir, cfg.Sync)
		if err != nil {
			return rep, err
		}
		defer srv.stop()
		url, cfg.server = srv.url, srv
	}
	nc, err := nats.Connect(url, nats.Name("guard-bench"))
	if err != nil {
		return rep, fmt.Errorf("connecting to %s: %w", url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(8192))
	if err != nil {
		return rep, err
	}
	loops := newLoops(cfg)
	for _, l := range loops.all() {
		if err := l.provision(ctx, js); err != nil {
			return rep, err
		}
	}
	if err := provision(ctx, js, cfg); err != nil {
		return rep, err
	}
	steps := []struct {
		name string
		run  func() error
	}{
		{phases[0], func() error { return measureThroughput(ctx, cfg, js, url, loops.old, loops.base, &rep, log) }},
		{phases[1], func() error { return measureLatency(ctx, cfg, nc, js, url, loops, &rep, log) }},
		{phases[2], func() error { return measureScale(ctx, cfg, js, url, &rep, log) }},
	}
	for _, p := range steps {
		before := cfg.warn.count()
		err := p.run()
		rep.Failures[p.name] = cfg.warn.since(before)
		if err != nil {
			return rep, fmt.Errorf("%s: %w", p.name, err)
		}
	}
	rep.Seconds = time.Since(began).Seconds()
	return rep, nil
}

func agentSubject(m msg) string { return m.subject }

// phase runs f under the configured timeout.
func phase(ctx context.Context, cfg Config, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	return f(ctx)
}

func provision(ctx context.Context, js jetstream.JetStream, cfg Config) error {
	sc := streams.DefaultConfig()
	sc.Partitions = cfg.Partitions
	// Room for the largest scale's events and run state: a benchmark
	// measures speed, not the caps.
	sc.EventMaxBytes, sc.RunsMaxBytes = 8<<30, 4<<30
	if err := streams.Provision(ctx, js, sc); err != nil {
		return err
	}
	_, err := objectstore.Provision(ctx, js, objectstore.DefaultConfig())
	return err
}

// waitDrain waits until guard-consumer has handled every event.
func waitDrain(ctx context.Context, cfg Config, js jetstream.JetStream) (time.Time, error) {
	var done time.Time
	err := phase(ctx, cfg, func(ctx context.Context) (err error) {
		done, err = drain(ctx, js, streams.EventStream, guardConsumers(cfg.Partitions))
		return err
	})
	return done, err
}
