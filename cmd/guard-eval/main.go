// Command guard-eval evaluates a guard policy on recorded agent runs: it
// replays each run through the chain guard-consumer builds, in process,
// and reports what the guards did, by the runs' outcome labels, and, with
// -inject, how many injected faults they caught and how soon.
//
//	guard-eval ../shared/trajectories/dev.jsonl.gz
//	guard-eval -inject -json runs.jsonl > report.json
//	guard-eval export -nats-url nats://127.0.0.1:4222 -tenant acme > events.jsonl
//	guard-eval events dev.jsonl.gz > events.jsonl
//
// The input is recorded runs or wire events as JSON lines, gzip-compressed
// or not; docs/evaluation.md describes both.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/guard"
	"github.com/guardstream/guardstream/internal/eval"
	"github.com/guardstream/guardstream/internal/eventlog"
	"github.com/guardstream/guardstream/internal/trajectory"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// usageError is a mistake on the command line.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func run(args []string, stdout, stderr io.Writer) int {
	var err error
	switch {
	case len(args) > 0 && args[0] == "export":
		err = exportCmd(args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "events":
		err = eventsCmd(args[1:], stdout, stderr)
	default:
		err = evalCmd(args, stdout, stderr)
	}
	var usage usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &usage):
		fmt.Fprintf(stderr, "guard-eval: %v\nRun 'guard-eval -h' for the flags.\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "guard-eval: %v\n", err)
	return 1
}

func evalCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("guard-eval", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: guard-eval [flags] FILE...\n       guard-eval export [flags]\n       guard-eval events [flags] FILE...\n\n"+
			"Replays recorded runs or exported wire events (JSON lines, gzip or not; - is stdin)\nthrough a policy and reports what the guards did.\n\nflags:\n")
		fs.PrintDefaults()
	}
	var (
		policyPath = fs.String("policy", "", "YAML or JSON policy file; settings it leaves out keep their defaults")
		asJSON     = fs.Bool("json", false, "write the report as JSON")
		oneTurn    = fs.Bool("one-turn", false, "report every step of a recorded run as user turn 1 (turn: 1), not without turns")
		inject     = fs.Bool("inject", false, "also inject faults into every run and report recall per fault class")
		faults     = fs.String("faults", "", "comma-separated fault classes to inject (default all): "+faultNames())
		seed       = fs.Uint64("seed", 1, "seed of the points of injection")
		examples   = fs.Int("examples", 3, "examples kept per kind of decision")
		labelsPath = fs.String("labels", "", "file of 'run label' lines giving the outcome of wire-event runs (run is tenant/run or the run id)")
		tenant     = fs.String("tenant", "eval", "tenant id of recorded runs")
		quiet      = fs.Bool("q", false, "no progress bar and no timing on stderr")
		show       = fs.String("show", "", "list every decision whose key starts with this, such as 'advise path_escape', with its events")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"name the runs to evaluate: a file of recorded runs or wire events, or - for stdin"}
	}
	pol, err := guard.Load(*policyPath)
	if err != nil {
		return err
	}
	var selected []eval.Fault
	if *faults != "" {
		*inject = true
		for _, name := range strings.Split(*faults, ",") {
			f := eval.Fault(strings.TrimSpace(name))
			if !isFault(f) {
				return usageError{fmt.Sprintf("-faults: %q is not a fault class; want some of %s", name, faultNames())}
			}
			selected = append(selected, f)
		}
	}
	if *examples < 0 {
		return usageError{"-examples must be 0 or more"}
	}
	if err := event.CheckID(*tenant); err != nil {
		return usageError{fmt.Sprintf("-tenant %q: %v", *tenant, err)}
	}
	labels, err := readLabels(*labelsPath)
	if err != nil {
		return err
	}
	m := trajectory.DefaultMapping()
	m.Tenant, m.OneTurn = *tenant, *oneTurn
	opts := eval.DefaultOptions()
	opts.Examples, opts.Show = *examples, *show
	e := eval.New(guard.Chain(pol), opts)
	var in *eval.Injector
	if *inject {
		in = eval.NewInjector(pol, *seed, selected...)
	}

	began := time.Now()
	events := 0
	for _, name := range fs.Args() {
		err := readFile(name, stderr, *quiet, func(r eval.Input) error {
			events += len(r.Events)
			e.Add(r.Run, r.Label, r.Events)
			if in != nil {
				in.Add(e, r.Run, r.Events)
			}
			return nil
		}, m, labels)
		if err != nil {
			return err
		}
	}
	rep := e.Report()
	if in != nil {
		rep.Recall = in.Recalls()
	}
	if !*quiet {
		fmt.Fprintf(stderr, "guard-eval: %d runs, %d events in %.2f s\n", rep.Runs, events, time.Since(began).Seconds())
	}
	w := bufio.NewWriter(stdout)
	if *asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if err := enc.Encode(rep); err != nil {
			return err
		}
	} else if err := rep.WriteTable(w); err != nil {
		return err
	}
	return w.Flush()
}

// readFile reads the runs of one input file, with a progress bar on
// stderr when it is a terminal.
func readFile(name string, stderr io.Writer, quiet bool, fn func(eval.Input) error, m trajectory.Mapping, labels map[string]string) error {
	var r io.Reader = os.Stdin
	var size int64
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
			size = st.Size()
		}
		r = f
	}
	bar := newProgress(stderr, name, size, quiet)
	defer bar.done()
	cr := &countingReader{r: r}
	if err := eval.Read(cr, m, labels, func(in eval.Input) error {
		err := fn(in)
		bar.update(cr.n)
		return err
	}); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}

// readLabels reads a file of "run label" lines; "" reads none.
func readLabels(path string) (map[string]string, error) {
	labels := map[string]string{}
	if path == "" {
		return labels, nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	for i, line := range strings.Split(string(b), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
		case len(f) != 2:
			return nil, fmt.Errorf("%s:%d: want 'run label', got %q", path, i+1, line)
		default:
			labels[f[0]] = f[1]
		}
	}
	return labels, nil
}

func faultNames() string {
	var names []string
	for _, f := range eval.Faults() {
		names = append(names, string(f))
	}
	return strings.Join(names, ",")
}

func isFault(f eval.Fault) bool {
	for _, g := range eval.Faults() {
		if f == g {
			return true
		}
	}
	return false
}

// eventsCmd writes recorded runs as the wire events guard-eval replays,
// as JSON lines.
func eventsCmd(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("guard-eval events", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		oneTurn = fs.Bool("one-turn", false, "report every step as user turn 1")
		tenant  = fs.String("tenant", "eval", "tenant id of the events")
	)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageError{"name a file of recorded runs, or - for stdin"}
	}
	if err := event.CheckID(*tenant); err != nil {
		return usageError{fmt.Sprintf("-tenant %q: %v", *tenant, err)}
	}
	m := trajectory.DefaultMapping()
	m.Tenant, m.OneTurn = *tenant, *oneTurn
	w := bufio.NewWriter(stdout)
	var line []byte
	for _, name := range fs.Args() {
		if err := readFile(name, stderr, true, func(in eval.Input) error {
			for i := range in.Events {
				line = eventlog.Append(line[:0], &in.Events[i])
				if _, err := w.Write(line); err != nil {
					return err
				}
			}
			return nil
		}, m, nil); err != nil {
			return err
		}
	}
	return w.Flush()
}
