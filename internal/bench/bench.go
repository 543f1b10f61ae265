package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"time"

	"github.com/guardstream/guardstream/internal/runner"
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
	// Rounds are the throughput measurements, in order; Baseline, Guard
	// and Ratio are those of the round with the median ratio.
	Rounds   []Round    `json:"rounds"`
	Baseline Throughput `json:"baseline"`
	Guard    Throughput `json:"guard"`
	Ratio    float64    `json:"ratio"`
	// BaseLatency and Latency are measured at the same offered loads, the
	// last at the guard's saturation.
	BaseLatency []Latency `json:"baseline_latency"`
	Latency     []Latency `json:"latency"`
	Memory      Memory    `json:"memory"`
}

const tenant = "bench"

// Run measures as cfg says, logging progress to log.
func Run(ctx context.Context, cfg Config, log io.Writer) (Report, error) {
	if err := cfg.Validate(); err != nil {
		return Report{}, err
	}
	cfg.log = log
	rep := Report{Partitions: cfg.Partitions, Payload: cfg.Payload, Sync: cfg.Sync, CPUs: runtime.NumCPU()}
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
		url = srv.url
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
	b := &baseline{partitions: cfg.Partitions, batch: runner.DefaultConfig(cfg.Partitions).Batch}
	if err := b.provision(ctx, js); err != nil {
		return rep, err
	}
	if err := provision(ctx, js, cfg); err != nil {
		return rep, err
	}
	if err := measureThroughput(ctx, cfg, js, url, b, &rep, log); err != nil {
		return rep, err
	}

	if err := measureLatency(ctx, cfg, nc, js, url, b, &rep, log); err != nil {
		return rep, err
	}
	if cfg.MemRuns > 0 {
		fmt.Fprintf(log, "memory: %d active runs\n", cfg.MemRuns)
		if rep.Memory, err = measureMemory(ctx, url, js, cfg); err != nil {
			return rep, fmt.Errorf("memory: %w", err)
		}
	}
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
	if err := streams.Provision(ctx, js, sc); err != nil {
		return err
	}
	_, err := objectstore.Provision(ctx, js, objectstore.DefaultConfig())
	return err
}

// guardConsumers returns the names of guard-consumer's consumers.
func guardConsumers(partitions int) []string {
	names := make([]string, partitions)
	for p := range names {
		names[p] = streams.ConsumerName(p)
	}
	return names
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
