package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go/jetstream"
)

// Scale is the guard's throughput with a number of runs active: their
// state loaded in the runner, every one of them touched while measured.
type Scale struct {
	Runs int        `json:"active_runs"`
	Tp   Throughput `json:"throughput"`
	// Ratio is the throughput to the first scale's, the mean of its two
	// measurements when it is measured again last.
	Ratio float64 `json:"ratio"`
	// LoadSeconds is how long the runner took to start the runs.
	LoadSeconds float64 `json:"load_seconds"`
	// HeapBytesPerRun is the runner's heap per active run, after GC;
	// StateBytesPerRun the mean size of a run's snapshot.
	HeapBytesPerRun  float64 `json:"heap_bytes_per_run"`
	StateBytesPerRun float64 `json:"state_bytes_per_run"`
	// Err says why the scale was not measured: it did not fit the
	// timeout. The scales after it are left out.
	Err string `json:"error,omitempty"`
}

// measureScale measures the guard's throughput at each of cfg.Scale active
// runs, and the first again at the end when there are several, so that
// the ratios' reference brackets the others in time.
func measureScale(ctx context.Context, cfg Config, js jetstream.JetStream, url string, rep *Report, log io.Writer) error {
	if len(cfg.Scale) == 0 {
		return nil
	}
	counts := slices.Clone(cfg.Scale)
	if len(counts) > 1 {
		counts = append(counts, counts[0])
	}
	largest := slices.Max(counts)
	for i, runs := range counts {
		fmt.Fprintf(log, "scaling: %d active runs\n", runs)
		profile := ""
		if runs == largest {
			profile, largest = cfg.HeapProfile, -1
		}
		s, err := measureRuns(ctx, cfg, js, url, runs, "s"+strconv.Itoa(i)+"-", profile)
		if err != nil {
			// The runner is behind on the stream: the scales after
			// would measure its backlog.
			s.Err = err.Error()
			rep.Scale = append(rep.Scale, s)
			fmt.Fprintf(log, "scaling: %d active runs: %v; the larger scales are left out\n", runs, err)
			break
		}
		rep.Scale = append(rep.Scale, s)
	}
	ref := rep.Scale[0].Tp.PerSecond
	if n := len(rep.Scale); n == len(counts) && n > 1 && rep.Scale[n-1].Err == "" {
		ref = (ref + rep.Scale[n-1].Tp.PerSecond) / 2
	}
	for i := range rep.Scale {
		if rep.Scale[i].Err == "" {
			rep.Scale[i].Ratio = rep.Scale[i].Tp.PerSecond / ref
		}
	}
	return nil
}

// measureRuns starts runs runs in a fresh runner, then pauses its
// consumers, preloads events that touch every run about alike (at least
// cfg.Events, and a step, a call and a result per run) and times their
// drain. It measures the heap the runs take in the runner, and writes a
// heap profile to profile if it is set.
func measureRuns(ctx context.Context, cfg Config, js jetstream.JetStream, url string, runs int, prefix, profile string) (Scale, error) {
	s := Scale{Runs: runs}
	triples := max((cfg.Events+3*runs-1)/(3*runs), 1)
	m := Mix{Tenant: tenant, Runs: runs, Events: runs * (3*triples + 2), Payload: cfg.Payload, Prefix: prefix, Plain: true}
	events := m.events()
	// Every run has the same number of events, so the interleaving puts
	// the starts first and the ends last.
	starts, measured := events[:runs], events[runs:len(events)-runs]
	if starts[runs-1].kind != event.KindRunStart || measured[0].kind == event.KindRunStart || measured[len(measured)-1].kind == event.KindRunEnd {
		return s, fmt.Errorf("the mix of %d runs is not starts, then events, then ends", runs)
	}
	if err := phase(ctx, cfg, func(ctx context.Context) error { return preload(ctx, js, starts, agentSubject) }); err != nil {
		return s, fmt.Errorf("preloading the starts: %w", err)
	}
	before := heapInUse()
	g, err := startGuard(ctx, url, cfg, slog.NewTextHandler(cfg.log, warnLevel))
	if err != nil {
		return s, err
	}
	defer g.stop()
	began := time.Now()
	if _, err := waitDrain(ctx, cfg, js); err != nil {
		return s, fmt.Errorf("loading the runs: %w", err)
	}
	s.LoadSeconds = time.Since(began).Seconds()
	s.HeapBytesPerRun = float64(int64(heapInUse())-int64(before)) / float64(runs)
	if profile != "" {
		if err := writeHeapProfile(profile); err != nil {
			return s, err
		}
	}
	if s.StateBytesPerRun, err = stateBytesPerRun(ctx, js); err != nil {
		return s, err
	}

	err = phase(ctx, cfg, func(ctx context.Context) error {
		if err := pause(ctx, js, cfg.Partitions, time.Now().Add(cfg.Timeout)); err != nil {
			return err
		}
		return preload(ctx, js, measured, agentSubject)
	})
	if err != nil {
		return s, fmt.Errorf("preloading the events: %w", err)
	}
	stored, err := storedMessages(ctx, js)
	if err != nil {
		return s, err
	}
	endProfile, err := cfg.profileServer("scale-" + strings.TrimSuffix(prefix, "-") + "-" + strconv.Itoa(runs))
	if err != nil {
		return s, err
	}
	if err := pause(ctx, js, cfg.Partitions, time.Time{}); err != nil {
		return s, errors.Join(err, endProfile())
	}
	cpu := readCPU(cfg.server.pid())
	began = time.Now()
	done, err := waitDrain(ctx, cfg, js)
	if err != nil {
		return s, errors.Join(fmt.Errorf("draining the events: %w", err), endProfile())
	}
	s.Tp = throughput(len(measured), done.Sub(began))
	s.Tp.CPU, s.Tp.ServerCPU = readCPU(cfg.server.pid()).perEvent(cpu, len(measured))
	if err := endProfile(); err != nil {
		return s, err
	}
	after, err := storedMessages(ctx, js)
	s.Tp.Stored = float64(after-stored) / float64(len(measured))
	return s, err
}

// pause pauses guard-consumer's consumers until until, or resumes them if
// until is zero: the runner keeps its state while events are preloaded.
func pause(ctx context.Context, js jetstream.JetStream, partitions int, until time.Time) error {
	for _, name := range guardConsumers(partitions) {
		var err error
		if until.IsZero() {
			_, err = js.ResumeConsumer(ctx, streams.EventStream, name)
		} else {
			_, err = js.PauseConsumer(ctx, streams.EventStream, name, until)
		}
		if err != nil {
			return fmt.Errorf("pausing %s: %w", name, err)
		}
	}
	return nil
}

// stateBytesPerRun returns the mean size of a snapshot in guard_runs.
func stateBytesPerRun(ctx context.Context, js jetstream.JetStream) (float64, error) {
	kv, err := js.Stream(ctx, "KV_"+streams.RunsBucket)
	if err != nil {
		return 0, err
	}
	info, err := kv.Info(ctx)
	if err != nil {
		return 0, err
	}
	return float64(info.State.Bytes) / float64(max(info.State.Msgs, 1)), nil
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
