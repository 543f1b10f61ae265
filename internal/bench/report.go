package bench

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"
)

// phases are the report's phases, in order.
var phases = []string{"throughput", "latency", "scaling"}

// Print writes the report as readable tables.
func (r Report) Print(w io.Writer) {
	mode := "default fsync (sync_interval 2m)"
	if r.Sync {
		mode = "sync_interval: always"
	}
	policy := "the default policy"
	if r.Policy != "" {
		policy = "policy " + r.Policy
	}
	fmt.Fprintf(w, "\nguard-bench: %d partitions, %d-byte events, %d CPUs, %s, %s\n", r.Partitions, r.Payload, r.CPUs, mode, policy)
	fmt.Fprintf(w, "baseline: %d events in flight per partition, pulls of %d\n\n", r.BaseWindow, r.BaseBatch)
	tw := table(w)
	fmt.Fprintln(tw, "throughput\tround\tevents\tseconds\tevents/s\tstored/event\tcpu µs/event\tratio\t")
	for i, rd := range r.Rounds {
		for _, row := range []struct {
			name  string
			tp    Throughput
			ratio string
		}{
			{"old baseline (runner's limits)", rd.Old, ""},
			{"baseline", rd.Baseline, fmt.Sprintf("%.2f", rd.Gain)},
			{"guard-consumer, every guard", rd.Guard, fmt.Sprintf("%.2f", rd.Ratio)},
		} {
			fmt.Fprintf(tw, "%s\t%d\t%d\t%.2f\t%.0f\t%.2f\t%s\t%s\t\n", row.name, i+1, row.tp.Events, row.tp.Seconds, row.tp.PerSecond, row.tp.Stored, row.tp.cpu(), row.ratio)
		}
	}
	fmt.Fprintf(tw, "baseline/old baseline, median of %d rounds\t\t\t\t\t\t\t%.2f\t\n", len(r.Rounds), r.Gain)
	fmt.Fprintf(tw, "guard/baseline, median of %d rounds\t\t\t\t\t\t\t%.2f\t\n", len(r.Rounds), r.Ratio)
	tw.Flush()

	if len(r.Latency) > 0 {
		fmt.Fprintf(w, "\nlatency (ms): %d interleaved pairs at each load; medians of the windows, the guard's p99 ratio to each (median, min-max, pooled samples);\n"+
			"cpu: µs per event of the pipeline's process + the server's in its windows (medians)\n", len(r.Latency[0].Guard))
		tw = table(w)
		fmt.Fprintln(tw, "offered/s\tagainst\tits p50\tits p99\tguard p50\tguard p99\tp99 ratio\tmin-max\tpooled\tno answer\tits cpu\tguard cpu\t")
		for _, l := range r.Latency {
			offered := strconv.Itoa(l.Offered)
			if l.Saturation {
				offered += " (saturation)"
			}
			gp50, gp99 := medianOf(l.Guard, func(x Latency) float64 { return x.P50 }), medianOf(l.Guard, func(x Latency) float64 { return x.P99 })
			for _, c := range l.Against {
				fmt.Fprintf(tw, "%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f-%.2f\t%.2f\t%d\t%s\t%s\t\n", offered, c.Name,
					medianOf(c.Windows, func(x Latency) float64 { return x.P50 }), medianOf(c.Windows, func(x Latency) float64 { return x.P99 }),
					gp50, gp99, c.Median, c.Min, c.Max, c.PooledRatio, c.Pooled.Missing+l.GuardPooled.Missing, windowsCPU(c.Windows), windowsCPU(l.Guard))
				offered = ""
			}
		}
		tw.Flush()
		fmt.Fprintln(w, "what the guarantees cost: the baseline's p99 over the loop's with the guard's partitions (median, min-max, pooled)")
		for _, l := range r.Latency {
			if !l.Saturation {
				g := l.Guarantees
				fmt.Fprintf(w, "  at %d events/s: %.2f, %.2f-%.2f, %.2f\n", l.Offered, g.Median, g.Min, g.Max, g.PooledRatio)
			}
		}
	}

	if len(r.Scale) > 0 {
		fmt.Fprintln(w)
		tw = table(w)
		fmt.Fprintln(tw, "scaling: active runs\tevents\tseconds\tevents/s\tstored/event\tcpu µs/event\tratio\tload s\theap B/run\tstate B/run\t")
		var errs []string
		for _, s := range r.Scale {
			tp := fmt.Sprintf("%d\t%.2f\t%.0f\t%.2f\t%s\t%.2f", s.Tp.Events, s.Tp.Seconds, s.Tp.PerSecond, s.Tp.Stored, s.Tp.cpu(), s.Ratio)
			if s.Err != "" {
				tp = "-\t-\t-\t-\t-\t-"
				errs = append(errs, fmt.Sprintf("%d active runs not measured: %s", s.Runs, s.Err))
			}
			fmt.Fprintf(tw, "%d\t%s\t%.1f\t%.0f\t%.0f\t\n", s.Runs, tp, s.LoadSeconds, s.HeapBytesPerRun, s.StateBytesPerRun)
		}
		tw.Flush()
		for _, e := range errs {
			fmt.Fprintln(w, e)
		}
	}

	fmt.Fprint(w, "\npartition failures:")
	warned := 0
	for i, p := range phases {
		f, ok := r.Failures[p]
		if !ok {
			continue
		}
		sep := ","
		if i == 0 {
			sep = ""
		}
		fmt.Fprintf(w, "%s %s %d", sep, p, f.Partitions)
		warned += f.Warnings
	}
	fmt.Fprintf(w, " (runner warnings in all: %d)\n", warned)
	fmt.Fprintf(w, "guard-bench took %v\n", (time.Duration(r.Seconds) * time.Second).Round(time.Second))
}

// windowsCPU is the median CPU per event of a pipeline's windows and of
// the server in them.
func windowsCPU(ls []Latency) string {
	return fmt.Sprintf("%.1f+%.1f", medianOf(ls, func(x Latency) float64 { return x.CPU }), medianOf(ls, func(x Latency) float64 { return x.ServerCPU }))
}

// cpu formats the CPU time per event: the process's, plus the server's
// when it was measured.
func (t Throughput) cpu() string {
	if t.ServerCPU == 0 {
		return fmt.Sprintf("%.1f", t.CPU)
	}
	return fmt.Sprintf("%.1f+%.1f", t.CPU, t.ServerCPU)
}

func table(w io.Writer) *tabwriter.Writer {
	return tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
}

// medianOf returns the median of f over ls.
func medianOf(ls []Latency, f func(Latency) float64) float64 {
	xs := make([]float64, len(ls))
	for i, l := range ls {
		xs[i] = f(l)
	}
	return median(xs)
}
