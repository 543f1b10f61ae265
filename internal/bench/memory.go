package bench

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Memory is what an active run costs.
type Memory struct {
	Runs             int     `json:"runs"`
	HeapBytesPerRun  float64 `json:"heap_bytes_per_run"`
	StateBytesPerRun float64 `json:"state_bytes_per_run"`
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
