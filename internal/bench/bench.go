package bench

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"sync"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
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

// Memory is what an active run costs.
type Memory struct {
	Runs             int     `json:"runs"`
	HeapBytesPerRun  float64 `json:"heap_bytes_per_run"`
	StateBytesPerRun float64 `json:"state_bytes_per_run"`
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

// running is a pipeline, the guard's or the baseline's, running in this
// process until stopped; stop may be called more than once.
type running struct {
	stop func()
}

// stopOnce returns a stop that cancels and waits for done, once.
func stopOnce(cancel context.CancelFunc, done <-chan struct{}, then func()) func() {
	var once sync.Once
	return func() {
		once.Do(func() {
			cancel()
			<-done
			then()
		})
	}
}

// startBaseline runs the baseline on its own connection, configured as
// the runner's, until stopped.
func startBaseline(ctx context.Context, url string, cfg Config, b *baseline) (*running, error) {
	nc, js, err := connect(url, "guard-bench baseline")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		if err := b.run(ctx, js); err != nil {
			fmt.Fprintf(cfg.log, "baseline: %v\n", err)
		}
		close(done)
	}()
	return &running{stop: stopOnce(cancel, done, nc.Close)}, nil
}

// connect opens a connection with the runner's publish settings.
func connect(url, name string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url, nats.Name(name))
	if err != nil {
		return nil, nil, err
	}
	rc := runner.DefaultConfig(1)
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncTimeout(rc.PublishTimeout), jetstream.WithPublishAsyncMaxPending(rc.MaxPending))
	if err != nil {
		nc.Close()
		return nil, nil, err
	}
	return nc, js, nil
}

// startGuard runs guard-consumer's runner on its own connection, as it
// would run in its own process: the agents' traffic does not queue behind
// its own.
func startGuard(ctx context.Context, url string, cfg Config) (*running, error) {
	nc, js, err := connect(url, "guard-bench runner")
	if err != nil {
		return nil, err
	}
	outputs, err := objectstore.Open(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		nc.Close()
		return nil, err
	}
	rc := runner.DefaultConfig(cfg.Partitions)
	rc.CheckpointInterval = cfg.Checkpoint
	rc.Logger = slog.New(slog.NewTextHandler(cfg.log, &slog.HandlerOptions{Level: slog.LevelWarn}))
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), rc, runner.WithOutputs(outputs))
	if err != nil {
		nc.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		if err := r.Run(rctx); err != nil {
			fmt.Fprintf(cfg.log, "guard-consumer: %v\n", err)
		}
		close(done)
	}()
	return &running{stop: stopOnce(cancel, done, nc.Close)}, nil
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

// measureMemory loads cfg.MemRuns active runs into a fresh runner and
// reports the heap they take and their snapshots' size.
func measureMemory(ctx context.Context, url string, js jetstream.JetStream, cfg Config) (Memory, error) {
	m := Mix{Tenant: tenant, Runs: cfg.MemRuns, Events: 4 * cfg.MemRuns, Payload: cfg.Payload, Prefix: "m-"}
	events := m.events()
	active := events[:0]
	for _, e := range events {
		if e.kind != event.KindRunEnd {
			active = append(active, e)
		}
	}
	if err := phase(ctx, cfg, func(ctx context.Context) error { return preload(ctx, js, active, agentSubject) }); err != nil {
		return Memory{}, err
	}
	events, active = nil, nil
	before := heapInUse()
	g, err := startGuard(ctx, url, cfg)
	if err != nil {
		return Memory{}, err
	}
	defer g.stop()
	if _, err := waitDrain(ctx, cfg, js); err != nil {
		return Memory{}, err
	}
	after := heapInUse()
	if cfg.HeapProfile != "" {
		if err := writeHeapProfile(cfg.HeapProfile); err != nil {
			return Memory{}, err
		}
	}
	kv, err := js.Stream(ctx, "KV_"+streams.RunsBucket)
	if err != nil {
		return Memory{}, err
	}
	info, err := kv.Info(ctx)
	if err != nil {
		return Memory{}, err
	}
	return Memory{
		Runs:             cfg.MemRuns,
		HeapBytesPerRun:  float64(after-before) / float64(cfg.MemRuns),
		StateBytesPerRun: float64(info.State.Bytes) / float64(max(info.State.Msgs, 1)),
	}, nil
}

func writeHeapProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.WriteHeapProfile(f)
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}
