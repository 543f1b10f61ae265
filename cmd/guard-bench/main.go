// Command guard-bench measures guard-consumer against a bare JetStream
// pipeline on the same server, in one run: throughput and its ratio,
// verdict latency at fixed offered loads and at saturation, and memory and
// state per active run.
//
//	go run ./cmd/guard-bench                 # embedded server, default fsync
//	go run ./cmd/guard-bench -sync           # sync_interval: always
//	go run ./cmd/guard-bench -json out.json  # also write the report as JSON
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"strconv"
	"strings"

	"github.com/guardstream/guardstream/internal/bench"
)

func main() {
	if len(os.Args) >= 3 && os.Args[1] == bench.ServeFlag {
		if err := bench.Serve(os.Args[2], len(os.Args) > 3 && os.Args[3] == "-sync"); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	cfg := bench.DefaultConfig()
	fs := flag.NewFlagSet("guard-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&cfg.NATSURL, "nats-url", "", "measure against this server instead of starting one")
	fs.BoolVar(&cfg.Sync, "sync", false, "start the server with sync_interval: always (durable mode)")
	fs.IntVar(&cfg.Partitions, "partitions", cfg.Partitions, "partitions of the baseline and of guard-consumer")
	fs.IntVar(&cfg.Events, "events", cfg.Events, "events in each throughput phase")
	fs.IntVar(&cfg.Runs, "runs", cfg.Runs, "runs the throughput events are spread over")
	fs.IntVar(&cfg.Rounds, "rounds", cfg.Rounds, "throughput rounds, each the baseline then the guard; the median ratio is reported")
	fs.IntVar(&cfg.Payload, "payload", cfg.Payload, "target event size in bytes")
	rates := fs.String("rates", "1000,5000,20000", "offered loads for latency, events/s, comma-separated")
	fs.DurationVar(&cfg.RateDuration, "rate-duration", cfg.RateDuration, "how long each offered load lasts")
	fs.IntVar(&cfg.MemRuns, "mem-runs", cfg.MemRuns, "active runs memory is measured with (0: skip)")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "bound on each phase")
	fs.DurationVar(&cfg.Checkpoint, "checkpoint", cfg.Checkpoint, "guard-consumer's checkpoint interval")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the benchmark process to this file")
	fs.StringVar(&cfg.HeapProfile, "memprofile", "", "write a heap profile, taken with the memory phase's runs loaded, to this file")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "guard-bench: %v\nRun 'guard-bench -h' for the flags.\n", err)
		return 2
	}
	cfg.Rates = nil
	for _, r := range strings.Split(*rates, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(r))
		if err != nil {
			fmt.Fprintf(stderr, "guard-bench: -rates %q: want comma-separated events/s, such as 1000,5000\n", *rates)
			return 2
		}
		cfg.Rates = append(cfg.Rates, n)
	}
	if err := cfg.Validate(); err != nil {
		fmt.Fprintf(stderr, "guard-bench: %v\n", err)
		return 2
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintf(stderr, "guard-bench: %v\n", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintf(stderr, "guard-bench: %v\n", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	rep, err := bench.Run(ctx, cfg, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "guard-bench: %v\n", err)
		return 1
	}
	rep.Print(stdout)
	if *jsonPath != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonPath, b, 0o644); err != nil {
			fmt.Fprintf(stderr, "guard-bench: %v\n", err)
			return 1
		}
	}
	return 0
}
