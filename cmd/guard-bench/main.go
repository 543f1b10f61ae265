// Command guard-bench measures guard-consumer against the limits of the
// server it runs on, in one run: its throughput against the baseline (the
// simplest consumer with its delivery guarantees) in rounds; its verdict
// latency at fixed offered loads and at saturation against core NATS
// request/reply, bare JetStream verdict loops with 1 and N partitions and
// the baseline, in interleaved pairs; its throughput, heap and state with
// 2k to 1M active runs; and the partition failures the runner logged.
//
//	go run ./cmd/guard-bench                 # embedded server, default fsync
//	go run ./cmd/guard-bench -sync           # sync_interval: always
//	go run ./cmd/guard-bench -json out.json  # also write the report as JSON
//	go run ./cmd/guard-bench -scale ''       # skip the scaling phase
//	go run ./cmd/guard-bench -policy p.yaml  # measure the guard with your policy
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
	if child, err := bench.RunChild(os.Args[1:]); child {
		if err != nil {
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
	fs.IntVar(&cfg.BaseWindow, "base-window", cfg.BaseWindow, "the baseline's events in flight per partition (its MaxAckPending)")
	fs.IntVar(&cfg.BaseBatch, "base-batch", cfg.BaseBatch, "the baseline's pull batch")
	rates := fs.String("rates", ints(cfg.Rates), "offered loads for latency, events/s, comma-separated")
	fs.DurationVar(&cfg.Window, "window", cfg.Window, "how long each latency window lasts")
	fs.IntVar(&cfg.Pairs, "pairs", cfg.Pairs, "latency windows of the guard, each paired with one of every floor and the baseline, at each load")
	scale := fs.String("scale", ints(cfg.Scale), "active runs the scaling phase measures throughput with, comma-separated; empty skips it")
	fs.DurationVar(&cfg.Timeout, "timeout", cfg.Timeout, "bound on each step of a phase: a preload, a drain, a latency window")
	fs.DurationVar(&cfg.Checkpoint, "checkpoint", cfg.Checkpoint, "guard-consumer's checkpoint interval")
	fs.StringVar(&cfg.Policy, "policy", "", "the guard's YAML or JSON policy file, or a preset by name, as guard-consumer's -policy; empty is the default policy")
	jsonPath := fs.String("json", "", "also write the report as JSON to this file")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the benchmark process to this file")
	fs.StringVar(&cfg.HeapProfile, "memprofile", "", "write a heap profile, taken with the largest scale's runs loaded, to this file")
	fs.StringVar(&cfg.ServerProfile, "server-cpuprofile", "", "write a CPU profile of the started server over each drain to <this prefix>-<drain>.pprof")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "guard-bench: %v\nRun 'guard-bench -h' for the flags.\n", err)
		return 2
	}
	var err error
	if cfg.Rates, err = parseInts(*rates); err != nil {
		fmt.Fprintf(stderr, "guard-bench: -rates %q: want comma-separated events/s, such as 1000,5000\n", *rates)
		return 2
	}
	if cfg.Scale, err = parseInts(*scale); err != nil {
		fmt.Fprintf(stderr, "guard-bench: -scale %q: want comma-separated run counts, such as 2000,100000\n", *scale)
		return 2
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

// parseInts parses comma-separated integers; empty is none.
func parseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, nil
}

// ints formats ns as parseInts reads them.
func ints(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}
