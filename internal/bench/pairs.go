package bench

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"

	"github.com/guardstream/guardstream/streams"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Load is the latency comparisons at one offered load.
type Load struct {
	Offered int `json:"offered_events_per_second"`
	// Saturation: the offered load is the guard's throughput.
	Saturation bool `json:"saturation"`
	// Guard is the guard's windows, one per round of pairs, and
	// GuardPooled their samples together.
	Guard       []Latency    `json:"guard"`
	GuardPooled Latency      `json:"guard_pooled"`
	Against     []Comparison `json:"against"`
	// Guarantees is the baseline's p99 to the loop's with the guard's
	// partitions, pair by pair: what a consumer with the guard's delivery
	// guarantees and no guards costs in the tail over the floor.
	Guarantees P99Ratio `json:"baseline_over_loop"`
}

// Comparison is the guard against a floor or the baseline at one load.
type Comparison struct {
	Name string `json:"name"`
	// Windows is this one's windows, each paired with the guard's of the
	// same round; Pooled is their samples together.
	Windows []Latency `json:"windows"`
	Pooled  Latency   `json:"pooled"`
	// The guard's p99 to this one's.
	P99Ratio
}

// P99Ratio is one pipeline's p99 to another's over windows paired round
// by round: Ratios pair by pair, summed up by Median, Min and Max.
// PooledRatio is the ratio of the pooled p99s, where a stall in one
// window in five still shows.
type P99Ratio struct {
	Ratios      []float64 `json:"p99_ratios"`
	Median      float64   `json:"p99_ratio_median"`
	Min         float64   `json:"p99_ratio_min"`
	Max         float64   `json:"p99_ratio_max"`
	PooledRatio float64   `json:"p99_ratio_pooled"`
}

// p99Ratio compares windows a with windows b of the same rounds, and
// their pooled samples.
func p99Ratio(a []Latency, aPooled Latency, b []Latency, bPooled Latency) P99Ratio {
	var r P99Ratio
	for k, w := range b {
		r.Ratios = append(r.Ratios, ratio(a[k].P99, w.P99))
	}
	r.Median, r.Min, r.Max = median(r.Ratios), slices.Min(r.Ratios), slices.Max(r.Ratios)
	r.PooledRatio = ratio(aPooled.P99, bPooled.P99)
	return r
}

// measureLatency compares the guard's verdict latency with each floor's
// and the baseline's at every offered load and then at the guard's
// saturation, in interleaved pairs: cfg.Pairs rounds, each a window of
// every one of them on the same events (the guard's on fresh runs), the
// guard's in the middle and the others' order rotating from round to
// round, so that each is sometimes before the guard and sometimes after.
// Every pipeline runs throughout; each window waits until its target has
// handled everything before the next starts.
func measureLatency(ctx context.Context, cfg Config, nc *nats.Conn, js jetstream.JetStream, url string, ls loops, rep *Report, log io.Writer) error {
	var started []*running
	defer func() {
		for _, r := range started {
			r.stop()
		}
	}()
	g, err := startProcess(ctx, cfg, url, guardPipeline)
	if err != nil {
		return err
	}
	started = append(started, g)
	rr, err := startProcess(ctx, cfg, url, responderPipeline)
	if err != nil {
		return err
	}
	started = append(started, rr)
	against := []*target{{name: "core request/reply", answers: "bench.rr.answers", core: true,
		subject: func(msg) string { return replySubject }, settle: func(context.Context) error { return nil }, pid: rr.pid}}
	var loopN, base int // their places in against
	for _, l := range []struct {
		name string
		l    *loop
	}{
		{"JetStream loop, 1 partition", ls.floor1},
		{"JetStream loop, " + strconv.Itoa(cfg.Partitions) + " partitions", ls.floorN},
		{"baseline", ls.base},
	} {
		r, err := startProcess(ctx, cfg, url, l.l.name)
		if err != nil {
			return err
		}
		started = append(started, r)
		switch l.l {
		case ls.floorN:
			loopN = len(against)
		case ls.base:
			base = len(against)
		}
		in, _ := l.l.streams()
		against = append(against, &target{name: l.name, answers: l.l.answers(),
			subject: func(m msg) string { return l.l.subject(m.subject) },
			settle:  func(ctx context.Context) error { _, err := drain(ctx, js, in, l.l.consumers()); return err },
			pid:     r.pid})
	}
	guard := &target{name: "guard", answers: "guard.ctl." + tenant + ".*.*", guard: true, subject: agentSubject,
		settle: func(ctx context.Context) error { _, err := waitDrain(ctx, cfg, js); return err }, pid: g.pid}

	var id uint32
	for li, rate := range append(slices.Clone(cfg.Rates), 0) {
		load := Load{Offered: rate, Saturation: rate == 0}
		n := rate * int(cfg.Window/time.Millisecond) / 1000
		if load.Saturation {
			load.Offered = max(int(rep.Guard.PerSecond), 1)
			n = min(load.Offered*int(cfg.Window/time.Millisecond)/1000, cfg.Events)
		}
		n = max(n, 100)
		fmt.Fprintf(log, "latency at %s: %d pairs of windows of %d events\n", rateName(rate), cfg.Pairs, n)
		var guardSamples [][]time.Duration
		samples := make([][][]time.Duration, len(against))
		load.Against = make([]Comparison, len(against))
		for k := range cfg.Pairs {
			m := Mix{Tenant: tenant, Runs: max(n/100, 1), Events: n, Payload: cfg.Payload, Prefix: "l" + strconv.Itoa(li) + "-" + strconv.Itoa(k) + "-"}
			msgs := m.events()
			order := make([]int, len(against))
			for j := range order {
				order[j] = (j + k) % len(against)
			}
			order = slices.Insert(order, len(order)/2, -1)
			for _, j := range order {
				t := guard
				if j >= 0 {
					t = against[j]
				}
				id++
				var lat Latency
				var taken []time.Duration
				err := phase(ctx, cfg, func(ctx context.Context) (err error) {
					lat, taken, err = window{id: id, t: t, rate: load.Offered, msgs: msgs, server: cfg.server.pid()}.offer(ctx, nc)
					return err
				})
				if err != nil {
					return fmt.Errorf("%s at %s: %w", t.name, rateName(rate), err)
				}
				if j < 0 {
					load.Guard, guardSamples = append(load.Guard, lat), append(guardSamples, taken)
					continue
				}
				c := &load.Against[j]
				c.Name, c.Windows, samples[j] = t.name, append(c.Windows, lat), append(samples[j], taken)
			}
		}
		load.GuardPooled = pooled(load.Guard, guardSamples)
		for j := range load.Against {
			c := &load.Against[j]
			c.Pooled = pooled(c.Windows, samples[j])
			c.P99Ratio = p99Ratio(load.Guard, load.GuardPooled, c.Windows, c.Pooled)
		}
		l, b := load.Against[loopN], load.Against[base]
		load.Guarantees = p99Ratio(b.Windows, b.Pooled, l.Windows, l.Pooled)
		rep.Latency = append(rep.Latency, load)
	}
	return nil
}

// ratio is a/b, with b at least a microsecond.
func ratio(a, b float64) float64 { return a / max(b, 0.001) }

func rateName(rate int) string {
	if rate == 0 {
		return "saturation"
	}
	return strconv.Itoa(rate) + " events/s"
}

// guardConsumers returns the names of guard-consumer's consumers.
func guardConsumers(partitions int) []string {
	names := make([]string, partitions)
	for p := range names {
		names[p] = streams.ConsumerName(p)
	}
	return names
}
