package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/guardstream/guardstream/event"
	"github.com/guardstream/guardstream/internal/admin"
	"github.com/guardstream/guardstream/internal/auth"
	"github.com/guardstream/guardstream/objectstore"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// outputCmd implements `guard-consumer output`: it fetches the full output
// a call produced from the GUARD_OUTPUTS stream.
func outputCmd(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("guard-consumer output", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var (
		natsURL = fs.String("nats-url", nats.DefaultURL, "NATS server guard-consumer uses")
		tenant  = fs.String("tenant", "", "tenant of the run (required)")
		run     = fs.String("run", "", "run id (required)")
		call    = fs.String("call", "", "call id (required)")
		outPath = fs.String("o", "", "write the output to this file instead of standard output")
		dataDir = fs.String("data-dir", defaultDataDir(), "data directory of an embedded guard-consumer, whose operator key (operator.nk) is used\nwhen neither -creds nor -nkey is given")
	)
	client := new(auth.Client)
	client.RegisterFlags(fs)
	fs.Usage = func() {
		fmt.Fprint(stderr, `guard-consumer output prints the full output of a tool call, as guard-consumer stored it.

Usage:
  guard-consumer output -tenant T -run R -call C [-nats-url URL] [-creds FILE] [-o FILE]

It connects as an operator: with -creds or -nkey, or else with the key the
embedded guard-consumer keeps in -data-dir.

Flags:
`)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		fmt.Fprintf(stderr, "guard-consumer output: %v\nRun 'guard-consumer output -h' for the flags.\n", err)
		return 2
	}
	if *tenant == "" || *run == "" || *call == "" {
		fmt.Fprint(stderr, "guard-consumer output: -tenant, -run and -call are required, e.g.\n  guard-consumer output -tenant acme -run run-42 -call c7 > c7.out\n")
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if !client.Set() {
		if key := filepath.Join(*dataDir, auth.OperatorKeyFile); fileExists(key) {
			client.NKey = key
		}
	}
	opts, err := client.Options()
	if err != nil {
		fmt.Fprintf(stderr, "guard-consumer output: %v\n", err)
		return 2
	}
	data, ref, err := fetchOutput(ctx, *natsURL, opts, *tenant, *run, *call)
	switch {
	case errors.Is(err, objectstore.ErrNotFound):
		fmt.Fprintf(stderr, "guard-consumer output: no stored output for call %s of run %s/%s (wrong ids, or older than the stores keep it)\n", *call, *tenant, *run)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "guard-consumer output: %v\n", err)
		return 1
	}
	w := stdout
	if *outPath != "" {
		f, err := os.Create(*outPath)
		if err != nil {
			fmt.Fprintf(stderr, "guard-consumer output: %v\n", err)
			return 1
		}
		defer f.Close()
		w = f
		fmt.Fprintf(stderr, "%s: %d bytes, %s\n", *outPath, ref.Size, ref.Digest)
	}
	if _, err := w.Write(data); err != nil {
		fmt.Fprintf(stderr, "guard-consumer output: %v\n", err)
		return 1
	}
	return 0
}

func fetchOutput(ctx context.Context, url string, opts []nats.Option, tenant, run, call string) ([]byte, event.OutputRef, error) {
	nc, err := nats.Connect(url, append(opts, nats.Name("guard-consumer output"))...)
	if err != nil {
		return nil, event.OutputRef{}, fmt.Errorf("connecting to %s: %w (is guard-consumer's server there? set -nats-url)", url, err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return nil, event.OutputRef{}, err
	}
	st, err := objectstore.Open(ctx, js, objectstore.DefaultConfig())
	if err != nil {
		return nil, event.OutputRef{}, err
	}
	return admin.Output(ctx, js, st, tenant, run, call)
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
