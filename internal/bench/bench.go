package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
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
	Partitions int        `json:"partitions"`
	Payload    int        `json:"payload_bytes"`
	Sync       bool       `json:"sync_always"`
	CPUs       int        `json:"cpus"`
	Baseline   Throughput `json:"baseline"`
	Guard      Throughput `json:"guard"`
	Ratio      float64    `json:"ratio"`
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
	mix := Mix{Tenant: tenant, Runs: cfg.Runs, Events: cfg.Events, Payload: cfg.Payload}
	events := mix.events()

	fmt.Fprintf(log, "baseline: %d events over %d partitions\n", len(events), cfg.Partitions)
	b := &baseline{js: js, partitions: cfg.Partitions, batch: runner.DefaultConfig(cfg.Partitions).Batch}
	bctx, stopBase := context.WithCancel(ctx)
	defer stopBase()
	if rep.Baseline, err = measureBaseline(bctx, cfg, b, events); err != nil {
		return rep, fmt.Errorf("baseline: %w", err)
	}
	fmt.Fprintf(log, "guard: %d events, every guard in the chain\n", len(events))
	if err := provision(ctx, js, cfg); err != nil {
		return rep, err
	}
	if err := phase(ctx, cfg, func(ctx context.Context) error { return preload(ctx, js, events, agentSubject) }); err != nil {
		return rep, err
	}
	g, err := startGuard(ctx, url, cfg)
	if err != nil {
		return rep, err
	}
	stopped := false
	stopGuard := func() {
		if !stopped {
			g.stop()
			stopped = true
		}
	}
	defer stopGuard()
	done, err := waitDrain(ctx, cfg, js)
	if err != nil {
		return rep, fmt.Errorf("guard: %w", err)
	}
	rep.Guard = throughput(len(events), done.Sub(g.started))
	rep.Ratio = rep.Guard.PerSecond / rep.Baseline.PerSecond

	// Latency: the baseline and the guard, each at every offered load and
	// then at the guard's saturation, on fresh runs.
	rates := append(append([]int(nil), cfg.Rates...), 0)
	for _, rate := range rates {
		n := rate * int(cfg.RateDuration.Seconds())
		if rate == 0 {
			n = min(int(rep.Guard.PerSecond*cfg.RateDuration.Seconds()), cfg.Events)
		}
		m := Mix{Tenant: tenant, Runs: max(n/100, 1), Events: max(n, 1000), Payload: cfg.Payload, Prefix: "l" + strconv.Itoa(rate) + "-"}
		msgs := m.events()
		offered := rate
		if rate == 0 {
			offered = int(rep.Guard.PerSecond)
		}
		fmt.Fprintf(log, "latency at %s: %d events\n", rateName(rate), len(msgs))
		var bl, gl Latency
		err := phase(ctx, cfg, func(ctx context.Context) (err error) {
			if bl, err = offer(ctx, nc, js, msgs, offered, func(m msg) string { return baseSubject(m.subject) }, "bench.out.>", true); err != nil {
				return err
			}
			gl, err = offer(ctx, nc, js, msgs, offered, agentSubject, "guard.ctl."+tenant+".*.*", false)
			return err
		})
		if err != nil {
			return rep, fmt.Errorf("latency at %s: %w", rateName(rate), err)
		}
		bl.Offered, gl.Offered = rate, rate
		rep.BaseLatency, rep.Latency = append(rep.BaseLatency, bl), append(rep.Latency, gl)
		if _, err := waitDrain(ctx, cfg, js); err != nil {
			return rep, err
		}
	}
	stopBase()
	stopGuard() // one owner at a time: the memory phase starts its own

	if cfg.MemRuns > 0 {
		fmt.Fprintf(log, "memory: %d active runs\n", cfg.MemRuns)
		if rep.Memory, err = measureMemory(ctx, url, js, cfg); err != nil {
			return rep, fmt.Errorf("memory: %w", err)
		}
	}
	return rep, nil
}

func rateName(rate int) string {
	if rate == 0 {
		return "saturation"
	}
	return strconv.Itoa(rate) + " events/s"
}

func agentSubject(m msg) string { return m.subject }

// phase runs f under the configured timeout.
func phase(ctx context.Context, cfg Config, f func(context.Context) error) error {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	return f(ctx)
}

// measureBaseline preloads events for the baseline and times its drain;
// the baseline keeps running until ctx ends, for the latency phases.
func measureBaseline(ctx context.Context, cfg Config, b *baseline, events []msg) (Throughput, error) {
	js := b.js
	if err := b.provision(ctx); err != nil {
		return Throughput{}, err
	}
	if err := phase(ctx, cfg, func(ctx context.Context) error {
		return preload(ctx, js, events, func(m msg) string { return baseSubject(m.subject) })
	}); err != nil {
		return Throughput{}, err
	}
	names := make([]string, cfg.Partitions)
	for p := range names {
		names[p] = "base-p" + strconv.Itoa(p)
	}
	start := time.Now()
	go func() { _ = b.run(ctx) }()
	var done time.Time
	err := phase(ctx, cfg, func(ctx context.Context) (err error) {
		done, err = drain(ctx, js, baseIn, names)
		return err
	})
	return throughput(len(events), done.Sub(start)), err
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

// running is a guard-consumer runner started in this process.
type running struct {
	started time.Time
	stop    func()
}

// startGuard runs guard-consumer's runner on its own connection, as it
// would run in its own process: the agents' traffic does not queue behind
// its own.
func startGuard(ctx context.Context, url string, cfg Config) (*running, error) {
	nc, err := nats.Connect(url, nats.Name("guard-bench runner"))
	if err != nil {
		return nil, err
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, err
	}
	outputs, err := objectstore.Open(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		nc.Close()
		return nil, err
	}
	rc := runner.DefaultConfig(cfg.Partitions)
	rc.CheckpointInterval = cfg.Checkpoint
	r, err := runner.New(ctx, nc, guard.Chain(guard.DefaultPolicy()), rc, runner.WithOutputs(outputs))
	if err != nil {
		nc.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	g := &running{started: time.Now()}
	go func() {
		_ = r.Run(rctx)
		close(done)
	}()
	g.stop = func() {
		cancel()
		<-done
		nc.Close()
	}
	return g, nil
}

func waitDrain(ctx context.Context, cfg Config, js jetstream.JetStream) (time.Time, error) {
	names := make([]string, cfg.Partitions)
	for p := range names {
		names[p] = streams.ConsumerName(p)
	}
	var done time.Time
	err := phase(ctx, cfg, func(ctx context.Context) (err error) {
		done, err = drain(ctx, js, streams.EventStream, names)
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
