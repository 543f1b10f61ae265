package bench

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Print writes the report as a readable table.
func (r Report) Print(w io.Writer) {
	mode := "default fsync (sync_interval 2m)"
	if r.Sync {
		mode = "sync_interval: always"
	}
	fmt.Fprintf(w, "\nguard-bench: %d partitions, %d-byte events, %d CPUs, %s\n\n", r.Partitions, r.Payload, r.CPUs, mode)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "throughput\tround\tevents\tseconds\tevents/s\tstored/event\tratio\t")
	for i, rd := range r.Rounds {
		fmt.Fprintf(tw, "bare JetStream pipeline\t%d\t%d\t%.2f\t%.0f\t%.2f\t\t\n", i+1, rd.Baseline.Events, rd.Baseline.Seconds, rd.Baseline.PerSecond, rd.Baseline.Stored)
		fmt.Fprintf(tw, "guard-consumer, every guard\t%d\t%d\t%.2f\t%.0f\t%.2f\t%.2f\t\n", i+1, rd.Guard.Events, rd.Guard.Seconds, rd.Guard.PerSecond, rd.Guard.Stored, rd.Ratio)
	}
	fmt.Fprintf(tw, "ratio guard/baseline, median of %d rounds\t\t\t\t\t\t%.2f\t\n", len(r.Rounds), r.Ratio)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "latency (ms)\toffered/s\tbase p50\tbase p99\tbase p99.9\tguard p50\tguard p99\tguard p99.9\tp99 ratio\tno answer\t")
	for i, l := range r.Latency {
		b := r.BaseLatency[i]
		offered := fmt.Sprint(l.Offered)
		if l.Offered == 0 {
			offered = "saturation"
		}
		fmt.Fprintf(tw, "\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%d\t\n", offered,
			b.P50, b.P99, b.P999, l.P50, l.P99, l.P999, l.P99/max(b.P99, 0.001), l.Missing+b.Missing)
	}
	tw.Flush()
	if r.Memory.Runs > 0 {
		fmt.Fprintf(w, "\nmemory: %d active runs, %.0f heap bytes per run, %.0f state bytes per run\n", r.Memory.Runs, r.Memory.HeapBytesPerRun, r.Memory.StateBytesPerRun)
	}
}
