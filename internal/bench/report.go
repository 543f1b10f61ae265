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
	fmt.Fprintln(tw, "throughput\tevents\tseconds\tevents/s\t")
	fmt.Fprintf(tw, "bare JetStream pipeline\t%d\t%.2f\t%.0f\t\n", r.Baseline.Events, r.Baseline.Seconds, r.Baseline.PerSecond)
	fmt.Fprintf(tw, "guard-consumer, every guard\t%d\t%.2f\t%.0f\t\n", r.Guard.Events, r.Guard.Seconds, r.Guard.PerSecond)
	fmt.Fprintf(tw, "ratio guard/baseline\t\t\t%.2f\t\n", r.Ratio)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "verdict latency\toffered/s\tachieved/s\tcalls\tp50 ms\tp99 ms\tp99.9 ms\tno verdict\t")
	for _, l := range r.Latency {
		offered := fmt.Sprint(l.Offered)
		if l.Offered == 0 {
			offered = "saturation"
		}
		fmt.Fprintf(tw, "\t%s\t%.0f\t%d\t%.2f\t%.2f\t%.2f\t%d\t\n", offered, l.Achieved, l.Calls, l.P50, l.P99, l.P999, l.Missing)
	}
	tw.Flush()
	if r.Memory.Runs > 0 {
		fmt.Fprintf(w, "\nmemory: %d active runs, %.0f heap bytes per run, %.0f state bytes per run\n", r.Memory.Runs, r.Memory.HeapBytesPerRun, r.Memory.StateBytesPerRun)
	}
}
