package eval

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// WriteTable writes r as readable tables: what the guards did by label,
// the stops, recall by fault class if measured, and the examples.
func (r *Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	var labels []string
	for _, l := range r.Labels {
		labels = append(labels, fmt.Sprintf("%s %d", l.Label, l.Runs))
	}
	fmt.Fprintf(tw, "%d runs: %s\n", r.Runs, strings.Join(labels, ", "))
	if r.Invalid > 0 {
		fmt.Fprintf(tw, "%d events left out: they break the wire contract (event.Validate), as guard-consumer would dead-letter them\n", r.Invalid)
	}
	fmt.Fprintln(tw)

	head := []string{"decision"}
	for _, l := range r.Labels {
		head = append(head, fmt.Sprintf("%s (%d)", l.Label, l.Runs), "times")
	}
	if len(r.Labels) == 2 {
		head = append(head, r.Labels[1].Label+"/"+r.Labels[0].Label)
	}
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range r.Rows {
		name := "  " + row.Key
		if !strings.Contains(row.Key, " ") {
			name = "runs with any " + row.Key
		}
		cells := []string{name}
		for _, c := range row.Counts {
			cells = append(cells, fmt.Sprintf("%5.1f %% (%d)", 100*c.Share, c.Runs), fmt.Sprint(c.Times))
		}
		if len(row.Counts) == 2 {
			cells = append(cells, ratio(row.Counts[1].Share, row.Counts[0].Share))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	if len(r.Rows) == 0 {
		fmt.Fprintln(tw, "(no guard decided anything but allows)")
	}

	if len(r.Stops) > 0 {
		fmt.Fprintln(tw, "\nstopped run\tlabel\tdecision\tat step\tsaved steps\tsaved cost")
		for _, s := range r.Stops {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%d of %d\t%d\t$%.4f\n", s.Run, s.Label, s.Key, s.Step, s.Steps, s.SavedSteps, float64(s.SavedCost)/1e6)
		}
	}
	if len(r.Recall) > 0 {
		fmt.Fprintln(tw, "\nfault (injected)\tpromise\tinjected\tcaught in time\trecall\tlate\tmissed\tnot reached\tsteps to catch (mean, max)\tcaught by")
		for _, c := range r.Recall {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.1f %%\t%d\t%d\t%d\t%.2f, %d\t%s\n", c.Fault, c.Promise, c.Injected, c.Caught, 100*c.Recall(),
				c.Late, c.Missed, c.NotReached, c.MeanLatency(), c.MaxLatency, c.Rule)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, sec := range []struct {
		title string
		xs    []Example
	}{{"examples", r.Examples}, {"shown", r.Shown}} {
		if len(sec.xs) == 0 {
			continue
		}
		fmt.Fprintln(w, "\n"+sec.title)
		for _, x := range sec.xs {
			fmt.Fprintf(w, "\n%s · %s (%s), step %d\n  %s\n", x.Key, x.Run, x.Label, x.Step, clip(x.Msg, 300))
			for _, ev := range x.Events {
				fmt.Fprintf(w, "    %s\n", ev)
			}
		}
	}
	_, err := fmt.Fprintln(w)
	return err
}

func ratio(a, b float64) string {
	switch {
	case b == 0 && a == 0:
		return "-"
	case b == 0:
		return "only"
	}
	return fmt.Sprintf("%.2f", a/b)
}
